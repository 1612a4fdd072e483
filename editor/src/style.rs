//! One icon and one accent colour per kind, used everywhere an item is shown.

use actforge_runtime::{Kind, Severity};
use egui::Color32;
use egui_phosphor::regular as icon;

/// The icon of a kind (a Phosphor glyph).
pub fn kind_icon(kind: Kind) -> &'static str {
    match kind {
        Kind::Aspect => icon::SPARKLE,
        Kind::Card => icon::CARDS,
        Kind::Deck => icon::STACK,
        Kind::Slot => icon::TARGET,
        Kind::Rule => icon::LIST_CHECKS,
        Kind::Act => icon::SCROLL,
        Kind::Token => icon::COIN,
        Kind::Formula => icon::FUNCTION,
        Kind::Stat => icon::CHART_LINE,
        Kind::TurnConfig => icon::ARROWS_CLOCKWISE,
        Kind::Era => icon::HOURGLASS,
        Kind::Synthesis => icon::FLASK,
        Kind::Board => icon::GRID_FOUR,
        Kind::TileMap => icon::CUBE,
        Kind::NodeMap => icon::GRAPH,
        Kind::Unit => icon::PERSON,
        Kind::Skill => icon::SWORD,
        Kind::Equipment => icon::SHIELD,
    }
}

/// The accent colour of a kind.
pub fn kind_colour(kind: Kind) -> Color32 {
    match kind {
        Kind::Aspect => Color32::from_rgb(0xe0, 0xb0, 0x40),
        Kind::Card => Color32::from_rgb(0x5b, 0xa4, 0xe6),
        Kind::Deck => Color32::from_rgb(0x4f, 0x7c, 0xc9),
        Kind::Slot => Color32::from_rgb(0x6c, 0xc4, 0xa1),
        Kind::Rule => Color32::from_rgb(0xc7, 0x7d, 0xd8),
        Kind::Act => Color32::from_rgb(0xe8, 0x8a, 0x5c),
        Kind::Token => Color32::from_rgb(0xd9, 0xc2, 0x6b),
        Kind::Formula => Color32::from_rgb(0x8f, 0xb8, 0xff),
        Kind::Stat => Color32::from_rgb(0x7f, 0xd1, 0x6d),
        Kind::TurnConfig => Color32::from_rgb(0x9a, 0xa9, 0xb8),
        Kind::Era => Color32::from_rgb(0xd4, 0x9a, 0x6a),
        Kind::Synthesis => Color32::from_rgb(0xe0, 0x6c, 0x9f),
        Kind::Board => Color32::from_rgb(0xa0, 0x8c, 0x70),
        Kind::TileMap => Color32::from_rgb(0x56, 0xb6, 0xc2),
        Kind::NodeMap => Color32::from_rgb(0x9c, 0xcc, 0x65),
        Kind::Unit => Color32::from_rgb(0xef, 0x6f, 0x6c),
        Kind::Skill => Color32::from_rgb(0xf0, 0x93, 0x3b),
        Kind::Equipment => Color32::from_rgb(0xb8, 0x9c, 0xd9),
    }
}

/// A kind's colour for text on the current theme: the accent itself on dark panels, darkened
/// on light ones (the pale accents are hard to read on white).
pub fn kind_text_colour(kind: Kind, visuals: &egui::Visuals) -> Color32 {
    readable_text_colour(kind_colour(kind), visuals)
}

/// An accent colour made readable as text on the current theme: as it is on dark panels,
/// darkened on light ones.
pub fn readable_text_colour(accent: Color32, visuals: &egui::Visuals) -> Color32 {
    if visuals.dark_mode {
        return accent;
    }
    // Darkened in steps until it reads (WCAG's 4.5:1 for text), keeping its hue.
    let darken = |colour: Color32| {
        let step = |channel: u8| (u16::from(channel) * 17 / 20) as u8;
        Color32::from_rgb(step(colour.r()), step(colour.g()), step(colour.b()))
    };
    let mut colour = darken(accent);
    while contrast(colour, visuals.panel_fill) < 4.5 && colour != Color32::BLACK {
        colour = darken(colour);
    }
    colour
}

/// WCAG's contrast ratio of two colours (1 to 21).
fn contrast(a: Color32, b: Color32) -> f32 {
    let luminance = |colour: Color32| {
        let linear = |channel: u8| {
            let c = f32::from(channel) / 255.0;
            if c <= 0.039_28 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        };
        0.2126 * linear(colour.r()) + 0.7152 * linear(colour.g()) + 0.0722 * linear(colour.b())
    };
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The icon of a diagnostic severity.
pub fn severity_icon(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => icon::X_CIRCLE,
        Severity::Warning => icon::WARNING,
        Severity::Info => icon::INFO,
    }
}

/// The colour of a diagnostic severity.
pub fn severity_colour(severity: Severity) -> Color32 {
    match severity {
        Severity::Error => Color32::from_rgb(0xf0, 0x5d, 0x5d),
        Severity::Warning => Color32::from_rgb(0xf2, 0xb3, 0x3d),
        Severity::Info => Color32::from_rgb(0x7a, 0xb8, 0xf0),
    }
}

/// Installs the icon font next to egui's default fonts.
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = egui::FontDefinitions::default();
    egui_phosphor::add_to_fonts(&mut fonts, egui_phosphor::Variant::Regular);
    // The proportional font lacks arrows (→) and bullets (●) that names and messages use; the
    // monospace font has them, so it is the last fallback rather than an empty box.
    if let Some(proportional) = fonts.families.get_mut(&egui::FontFamily::Proportional) {
        proportional.push("Hack".to_owned());
    }
    ctx.set_fonts(fonts);
}

#[cfg(test)]
mod tests {
    use actforge_runtime::Kind;
    use egui::Color32;

    use super::contrast;

    #[test]
    fn the_highlight_and_team_colours_are_readable_on_both_themes() {
        let accents = [Color32::YELLOW, Color32::from_rgb(0x5b, 0xa4, 0xe6), Color32::from_rgb(0xef, 0x6f, 0x6c)];
        for visuals in [egui::Visuals::dark(), egui::Visuals::light()] {
            for accent in accents {
                let ratio = contrast(super::readable_text_colour(accent, &visuals), visuals.panel_fill);
                assert!(ratio >= 4.0, "{accent:?} (dark mode {}): contrast {ratio:.2}", visuals.dark_mode);
            }
        }
    }

    #[test]
    fn kind_names_are_readable_on_both_themes() {
        for visuals in [egui::Visuals::dark(), egui::Visuals::light()] {
            for &kind in Kind::ALL {
                let ratio = contrast(super::kind_text_colour(kind, &visuals), visuals.panel_fill);
                assert!(
                    ratio >= 4.0,
                    "{kind:?} on the {} theme: contrast {ratio:.2}",
                    if visuals.dark_mode { "dark" } else { "light" }
                );
            }
        }
    }

    #[test]
    fn the_text_font_draws_the_arrows_bullets_and_icons_the_editor_writes() {
        let ctx = egui::Context::default();
        super::install_fonts(&ctx);
        // Fonts are loaded at the start of a frame.
        let mut output = ctx.run_ui(egui::RawInput::default(), |_| {});
        output.textures_delta.clear();
        let font = egui::FontId::proportional(14.0);
        for text in ["harbour → tide_caves", "● unsaved", "Fish Market · fish_market", egui_phosphor::regular::CUBE]
        {
            assert!(ctx.fonts_mut(|fonts| fonts.has_glyphs(&font, text)), "{text:?} has a glyph missing");
        }
    }
}
