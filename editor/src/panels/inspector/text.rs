//! Designer texts: multi-line editors with the text-substitution syntax of
//! `spec/cultistlike.md` (`[NAME]` substitutions, `{[NAME OP N] …}` conditional blocks)
//! coloured as it is typed.

use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontId, TextStyle};

/// Whether a string field holds text players read (edited multi-line, highlighted): the
/// texts and descriptions, by name.
pub fn is_designer_text(name: &str) -> bool {
    matches!(name, "text" | "description" | "end_text" | "message") || name.ends_with("_text")
}

/// The colours of the substitution syntax, from the theme.
struct Palette {
    plain: Color32,
    name: Color32,
    brace: Color32,
}

impl Palette {
    fn of(visuals: &egui::Visuals) -> Self {
        let (name, brace) = if visuals.dark_mode {
            (Color32::from_rgb(0x7e, 0xc8, 0xf2), Color32::from_rgb(0xe0, 0xb0, 0x50))
        } else {
            (Color32::from_rgb(0x1d, 0x5f, 0x99), Color32::from_rgb(0x8a, 0x5a, 0x00))
        };
        Self { plain: visuals.text_color(), name, brace }
    }
}

/// `text` laid out with `[NAME]` in the name colour and the braces of `{[…] …}` blocks in the
/// brace colour; everything else plain.
pub fn highlighted(text: &str, visuals: &egui::Visuals, font: &FontId, wrap_width: f32) -> LayoutJob {
    let palette = Palette::of(visuals);
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap_width;
    let format = |colour: Color32| TextFormat::simple(font.clone(), colour);
    let append = |job: &mut LayoutJob, text: &str, colour: Color32| {
        if !text.is_empty() {
            job.append(text, 0.0, format(colour));
        }
    };
    let mut rest = text;
    while !rest.is_empty() {
        // The next `[`, `{` or `}`: the syntax's only special characters.
        let Some(at) = rest.find(['[', '{', '}']) else {
            append(&mut job, rest, palette.plain);
            break;
        };
        let (plain, special) = rest.split_at(at);
        append(&mut job, plain, palette.plain);
        if let Some(inside) = special.strip_prefix('[')
            && let Some(close) = inside.find(']')
            && !inside.get(..close).unwrap_or_default().contains(['[', '\n'])
        {
            let end = close + 2;
            append(&mut job, special.get(..end).unwrap_or_default(), palette.name);
            rest = special.get(end..).unwrap_or_default();
        } else {
            let (brace, after) = special.split_at(1);
            append(&mut job, brace, palette.brace);
            rest = after;
        }
    }
    job
}

/// A multi-line editor of a designer text with the substitution syntax highlighted.
pub fn text_editor(ui: &mut egui::Ui, text: &mut String, id: egui::Id) -> egui::Response {
    let font = TextStyle::Body.resolve(ui.style());
    let mut layouter = |ui: &egui::Ui, buffer: &dyn egui::TextBuffer, wrap_width: f32| {
        let job = highlighted(buffer.as_str(), ui.visuals(), &font, wrap_width);
        ui.fonts_mut(|fonts| fonts.layout_job(job))
    };
    ui.add(egui::TextEdit::multiline(text).desired_rows(3).desired_width(f32::INFINITY).id(id).layouter(&mut layouter))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of the sections of a layout and whether each is plain.
    fn sections(text: &str) -> Vec<(String, bool)> {
        let visuals = egui::Visuals::dark();
        let job = highlighted(text, &visuals, &FontId::monospace(12.0), f32::INFINITY);
        job.sections
            .iter()
            .map(|section| {
                (
                    job.text[section.byte_range.start.0..section.byte_range.end.0].to_owned(),
                    section.format.color == visuals.text_color(),
                )
            })
            .collect()
    }

    #[test]
    fn names_and_block_braces_are_coloured_and_the_rest_is_plain() {
        assert_eq!(
            sections("You hold [lamp_oil]. {[fuel >= 2] Enough.}"),
            vec![
                ("You hold ".to_owned(), true),
                ("[lamp_oil]".to_owned(), false),
                (". ".to_owned(), true),
                ("{".to_owned(), false),
                ("[fuel >= 2]".to_owned(), false),
                (" Enough.".to_owned(), true),
                ("}".to_owned(), false),
            ]
        );
        // An unclosed bracket is just a character.
        assert_eq!(sections("a [b"), vec![("a ".to_owned(), true), ("[".to_owned(), false), ("b".to_owned(), true)]);
    }

    #[test]
    fn texts_are_told_from_other_strings_by_name() {
        assert!(is_designer_text("text") && is_designer_text("end_text") && is_designer_text("description"));
        assert!(!is_designer_text("label") && !is_designer_text("team"));
    }
}
