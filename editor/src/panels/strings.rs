//! The Strings tab: every designer-facing text as a row, one column per language, translations
//! edited in place (each edit an undoable op); filters for missing and stale translations
//! (issue 32).

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use actforge_runtime::Project;
use actforge_runtime::locale::{
    Locale, SourceString, Translation, language_problem, placeholders, saved_languages, source_strings,
};
use egui::{Color32, RichText};
use egui_extras::{Column, TableBuilder};
use egui_phosphor::regular as icon;

use crate::document::{ItemKey, Op};
use crate::panels::inspector::InspectorAction;
use crate::requests::{Request, Requests};
use crate::workspace::Workspace;

/// Which rows the table shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StringsFilter {
    /// Every text.
    #[default]
    All,
    /// Texts without a translation in the chosen language (or in any language).
    Missing,
    /// Texts whose translation was made from an older source.
    Stale,
}

/// The tab's state.
#[derive(Default)]
pub struct StringsPanel {
    /// The document revision `strings` were found for, and the project's texts then.
    strings: Option<(u64, Arc<Vec<SourceString>>)>,
    filter: StringsFilter,
    /// The language the filter looks at; empty: any language.
    language: String,
    search: String,
    /// The code typed into "Add language", and why it was refused.
    new_language: String,
    new_language_problem: Option<String>,
}

/// Most lines a row's text fields show before they scroll.
const MAX_ROW_LINES: usize = 6;

impl StringsPanel {
    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, workspace: &Workspace, requests: &mut Requests) {
        let Workspace::Open(open) = workspace else {
            ui.label("No project is open.");
            return;
        };
        let project = open.document.project();
        let revision = open.document.revision();
        if self.strings.as_ref().is_none_or(|(at, _)| *at != revision) {
            self.strings = Some((revision, Arc::new(source_strings(project))));
        }
        let strings = self.strings.as_ref().map(|(_, strings)| Arc::clone(strings)).unwrap_or_default();
        let languages: Vec<String> = saved_languages(project).into_iter().map(str::to_owned).collect();
        if !self.language.is_empty() && !languages.contains(&self.language) {
            self.language.clear();
        }
        self.toolbar_ui(ui, &languages);
        self.languages_ui(ui, project, &strings, &languages, requests);
        ui.separator();
        if strings.is_empty() {
            ui.label(
                "No texts yet. Labels, texts, end texts and descriptions appear here as you write them in the items.",
            );
            return;
        }
        if languages.is_empty() {
            ui.label(format!(
                "{} Add a language above to translate these texts; the preview then plays in it (Preview → Language).",
                icon::INFO
            ));
        }
        let empty = Locale::new();
        let rows: Vec<&SourceString> =
            strings.iter().filter(|string| self.shows(string, project, &languages, &empty)).collect();
        if rows.is_empty() {
            ui.label("No text matches the filter.");
            return;
        }
        Self::table_ui(ui, project, &rows, &languages, requests);
    }

    /// What the table shows: the filter, the language it looks at, a search.
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, languages: &[String]) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Show");
            for (filter, name, hint) in [
                (StringsFilter::All, "All", "Every text"),
                (StringsFilter::Missing, "Missing", "Texts with no translation"),
                (StringsFilter::Stale, "Stale", "Translations made from a source text that has changed since"),
            ] {
                if ui.selectable_label(self.filter == filter, name).on_hover_text(hint).clicked() {
                    self.filter = filter;
                }
            }
            let any = "in any language".to_owned();
            egui::ComboBox::from_id_salt("strings_filter_language")
                .selected_text(if self.language.is_empty() { any.clone() } else { format!("in {}", self.language) })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.language, String::new(), any);
                    for language in languages {
                        ui.selectable_value(&mut self.language, language.clone(), format!("in {language}"));
                    }
                });
            ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text(format!("{} Search keys and texts", icon::MAGNIFYING_GLASS))
                    .desired_width(180.0),
            );
        });
    }

    /// The languages: what each has translated, and a field to add one.
    fn languages_ui(
        &mut self,
        ui: &mut egui::Ui,
        project: &Project,
        strings: &[SourceString],
        languages: &[String],
        requests: &mut Requests,
    ) {
        ui.horizontal_wrapped(|ui| {
            Self::summary_ui(ui, project, strings, languages);
            ui.separator();
            let response = ui
                .add(egui::TextEdit::singleline(&mut self.new_language).hint_text("code, e.g. fr").desired_width(90.0));
            // Screen readers (and tests) find the field by what it is for.
            ui.ctx().accesskit_node_builder(response.id, |node| node.set_label("New language code"));
            let entered = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
            if ui
                .button(format!("{} Add language", icon::PLUS))
                .on_hover_text("Translate the project into another language (a code such as fr, de or pt-BR)")
                .clicked()
                || entered
            {
                self.add_language(project, requests);
            }
            if let Some(problem) = &self.new_language_problem {
                ui.colored_label(ui.visuals().error_fg_color, format!("{} {problem}", icon::WARNING));
            }
        });
    }

    fn add_language(&mut self, project: &Project, requests: &mut Requests) {
        let code = self.new_language.trim().to_owned();
        let problem = if code == project.manifest.localisation.source_language {
            Some(format!("`{code}` is the source language"))
        } else if project.manifest.localisation.languages.contains(&code) {
            Some(format!("`{code}` is already a language of the project"))
        } else {
            language_problem(&code)
        };
        self.new_language_problem = problem;
        if self.new_language_problem.is_some() {
            return;
        }
        let mut manifest = project.manifest.clone();
        manifest.localisation.languages.push(code.clone());
        requests.send(Request::Inspector(InspectorAction::Edit {
            op: Op::SetManifest(Box::new(manifest)),
            label: format!("Add the language `{code}`"),
            gesture: None,
        }));
        self.language = code;
        self.filter = StringsFilter::Missing;
        self.new_language.clear();
    }

    fn summary_ui(ui: &mut egui::Ui, project: &Project, strings: &[SourceString], languages: &[String]) {
        let empty = Locale::new();
        {
            ui.label(format!("{} texts in {}", strings.len(), project.manifest.localisation.source_language));
            for language in languages {
                let locale = project.locales.get(language).unwrap_or(&empty);
                let translated = strings.iter().filter(|string| translation(locale, string).is_some()).count();
                let stale = strings.iter().filter(|string| is_stale(locale, string)).count();
                ui.separator();
                let text = format!("{language}: {translated} of {} translated, {stale} stale", strings.len());
                if stale > 0 || translated < strings.len() {
                    ui.colored_label(ui.visuals().warn_fg_color, text);
                } else {
                    ui.label(text);
                }
            }
        }
    }

    /// Whether the filter and the search let `string` through.
    fn shows(&self, string: &SourceString, project: &Project, languages: &[String], empty: &Locale) -> bool {
        let looked_at: Vec<&String> =
            if self.language.is_empty() { languages.iter().collect() } else { vec![&self.language] };
        let locale = |language: &String| project.locales.get(language).unwrap_or(empty);
        let passes = match self.filter {
            StringsFilter::All => true,
            StringsFilter::Missing => looked_at.iter().any(|language| translation(locale(language), string).is_none()),
            StringsFilter::Stale => looked_at.iter().any(|language| is_stale(locale(language), string)),
        };
        if !passes {
            return false;
        }
        let needle = self.search.trim().to_lowercase();
        needle.is_empty()
            || string.key.to_lowercase().contains(&needle)
            || string.text.to_lowercase().contains(&needle)
            || languages.iter().any(|language| {
                locale(language).get(&string.key).is_some_and(|t| t.text.to_lowercase().contains(&needle))
            })
    }

    fn table_ui(
        ui: &mut egui::Ui,
        project: &Project,
        rows: &[&SourceString],
        languages: &[String],
        requests: &mut Requests,
    ) {
        let empty = Locale::new();
        let line_height = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
        let heights: Vec<f32> = rows
            .iter()
            .map(|string| {
                let lines = std::iter::once(string.text.as_str())
                    .chain(languages.iter().filter_map(|language| {
                        project
                            .locales
                            .get(language)
                            .and_then(|locale| locale.get(&string.key))
                            .map(|t| t.text.as_str())
                    }))
                    .map(|text| text.lines().count().max(1) + text.chars().count() / 48)
                    .max()
                    .unwrap_or(1)
                    .clamp(2, MAX_ROW_LINES);
                lines as f32 * line_height + 12.0
            })
            .collect();
        let source_language = project.manifest.localisation.source_language.clone();
        // The columns share the tab's width (a text column is never narrower than 160 points;
        // the table scrolls sideways past that).
        let width = ui.available_width();
        let key_width = (width * 0.25).clamp(140.0, 260.0);
        #[allow(clippy::cast_precision_loss, reason = "a handful of languages")]
        let text_width = ((width - key_width) / (languages.len() + 1) as f32 - 8.0).max(160.0);
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .resizable(true)
            .cell_layout(egui::Layout::top_down(egui::Align::LEFT))
            .column(Column::initial(key_width).at_least(120.0).clip(true))
            .column(Column::initial(text_width).at_least(120.0).clip(true));
        for _ in languages {
            table = table.column(Column::initial(text_width).at_least(120.0).clip(true));
        }
        table
            .header(22.0, |mut header| {
                header.col(|ui| {
                    ui.strong("Text");
                });
                header.col(|ui| {
                    ui.strong(format!("Source ({source_language})"));
                });
                for language in languages {
                    header.col(|ui| {
                        ui.strong(language);
                    });
                }
            })
            .body(|body| {
                body.heterogeneous_rows(heights.into_iter(), |mut row| {
                    let Some(string) = rows.get(row.index()) else { return };
                    row.col(|ui| {
                        let key = ItemKey::new(string.kind, string.item.clone());
                        let link = ui.link(RichText::new(&string.key).monospace().small());
                        if link.on_hover_text("Select the item and show this field in the inspector").clicked() {
                            requests.send(Request::SelectField(key, string.field.clone()));
                        }
                        let mut about = format!("{} {}", string.kind.label(), string.item);
                        if !string.context.is_empty() {
                            about.push_str(" · ");
                            about.push_str(&string.context);
                        }
                        if let Some(limit) = string.max_chars {
                            let _ = write!(about, " · max {limit} characters");
                        }
                        ui.label(RichText::new(about).small().weak());
                    });
                    row.col(|ui| {
                        ui.label(&string.text);
                    });
                    for language in languages {
                        let locale = project.locales.get(language).unwrap_or(&empty);
                        row.col(|ui| translation_cell(ui, project, language, locale, string, requests));
                    }
                });
            });
    }
}

/// The translation of `string` in `locale`, when it has a text.
fn translation<'a>(locale: &'a Locale, string: &SourceString) -> Option<&'a Translation> {
    locale.get(&string.key).filter(|translation| !translation.text.is_empty())
}

/// Whether `string`'s translation was made from another source text.
fn is_stale(locale: &Locale, string: &SourceString) -> bool {
    translation(locale, string).is_some_and(|translation| translation.source != string.text)
}

/// One translation, editable: every change is an op (typing merges into one undo step); a stale
/// one can be marked up to date; problems `check` would report show under it.
fn translation_cell(
    ui: &mut egui::Ui,
    project: &Project,
    language: &str,
    locale: &Locale,
    string: &SourceString,
    requests: &mut Requests,
) {
    let held = locale.get(&string.key);
    let mut text = held.map(|translation| translation.text.clone()).unwrap_or_default();
    let lines = text.lines().count().max(string.text.lines().count()).clamp(1, MAX_ROW_LINES);
    let response = ui.add(
        egui::TextEdit::multiline(&mut text)
            .id_salt(("translation", language, &string.key))
            .desired_rows(lines)
            .desired_width(f32::INFINITY)
            .hint_text(RichText::new(format!("Missing: type the {language} text")).italics()),
    );
    ui.ctx().accesskit_node_builder(response.id, |node| node.set_label(format!("{language} of {}", string.key)));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    ("strings", language, &string.key).hash(&mut hasher);
    let gesture = hasher.finish();
    if response.changed() {
        // Typing a translation reviews it: it is now made from the current source.
        let entry = (!text.is_empty()).then(|| Translation { text: text.clone(), source: string.text.clone() });
        set_translation(project, language, &string.key, entry, gesture, requests);
    }
    if response.lost_focus() {
        requests.send(Request::Inspector(InspectorAction::EndGesture));
    }
    let Some(held) = held.filter(|translation| !translation.text.is_empty()) else { return };
    ui.horizontal_wrapped(|ui| {
        if held.source != string.text {
            ui.colored_label(ui.visuals().warn_fg_color, format!("{} Stale", icon::WARNING))
                .on_hover_text(format!("Translated from: {}", held.source));
            if ui
                .small_button(format!("{} Up to date", icon::CHECK))
                .on_hover_text("The translation fits the current source text: mark it reviewed")
                .clicked()
            {
                let entry = Translation { text: held.text.clone(), source: string.text.clone() };
                set_translation(project, language, &string.key, Some(entry), gesture.wrapping_add(1), requests);
            }
        }
        let (wanted, kept) = (placeholders(&string.text), placeholders(&held.text));
        if wanted != kept {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{} Keep the placeholders {}", icon::WARNING_OCTAGON, wanted.join(" ")),
            );
        }
        if let Some(limit) = string.max_chars
            && held.text.chars().count() > limit as usize
        {
            ui.colored_label(
                Color32::from_rgb(220, 140, 40),
                format!("{} {} of {limit} characters", icon::RULER, held.text.chars().count()),
            );
        }
    });
}

/// Asks for `key`'s translation in `language` to become `entry` (`None`: removed).
fn set_translation(
    project: &Project,
    language: &str,
    key: &str,
    entry: Option<Translation>,
    gesture: u64,
    requests: &mut Requests,
) {
    let mut locales = project.locales.clone();
    let locale = locales.entry(language.to_owned()).or_default();
    match entry {
        Some(entry) => {
            locale.insert(key.to_owned(), entry);
        }
        None => {
            locale.remove(key);
        }
    }
    requests.send(Request::Inspector(InspectorAction::Edit {
        op: Op::SetLocales(Box::new(locales)),
        label: format!("Translate `{key}` ({language})"),
        gesture: Some(gesture),
    }));
}
