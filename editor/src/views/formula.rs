//! The Formula tab: a formula workbench with syntax highlighting, the value against sample
//! inputs the designer sets, and the error with a caret under the offending character. With a
//! named formula (a `formulas/` item) selected it edits that item (each typing gesture is one
//! undoable op); otherwise it is a scratch pad. The formula's parts show their values on hover
//! (a trace, [`trace_ui`]), against the preview's running game when there is one and it can
//! read the formula, else against the sample inputs; what makes a false formula false is red.

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::Session;
use actforge_runtime::formula::lexer::{TokenKind, tokenize};
use actforge_runtime::formula::query::{self, Query, QueryError};
use actforge_runtime::formula::{AnyNames, FormulaSet, FormulaTrace, Span, lookup_text};
use actforge_runtime::model::{Expr, Formula};
use actforge_runtime::number::show_value;
use actforge_runtime::{Kind, Project};
use egui::text::LayoutJob;
use egui::{Color32, FontId, RichText, TextFormat};

use crate::document::{ItemKey, Op, SharedItem};
use crate::panels::inspector::InspectorAction;

/// The workbench's text, which item it edits, and the sample inputs.
#[derive(Default)]
pub struct FormulaWorkbench {
    text: String,
    /// The named formula being edited (none: a scratch formula).
    editing: Option<ItemKey>,
    /// Sample values by lookup text (`c.atk`), kept across formulas.
    samples: BTreeMap<String, f64>,
    seed: u64,
}

/// The colour of each kind of token (dark and light themes).
fn token_colour(kind: &TokenKind<'_>, dark: bool) -> Color32 {
    let pick = |dark_colour: Color32, light_colour: Color32| if dark { dark_colour } else { light_colour };
    match kind {
        TokenKind::Number(_) => pick(Color32::from_rgb(181, 206, 168), Color32::from_rgb(9, 134, 88)),
        TokenKind::Ident(_) => pick(Color32::from_rgb(156, 220, 254), Color32::from_rgb(0, 16, 128)),
        TokenKind::Keyword(_) => pick(Color32::from_rgb(197, 134, 192), Color32::from_rgb(175, 0, 219)),
        TokenKind::Branch(_) => pick(Color32::from_rgb(220, 220, 170), Color32::from_rgb(121, 94, 38)),
        TokenKind::Symbol(_) | TokenKind::End => pick(Color32::from_rgb(212, 212, 212), Color32::from_rgb(60, 60, 60)),
    }
}

/// `text` laid out with each token in its colour; past a lexing error the rest is in the error
/// colour.
pub fn highlighted(text: &str, dark: bool, error: Color32) -> LayoutJob {
    let font = FontId::monospace(14.0);
    let mut job = LayoutJob::default();
    let plain = TextFormat::simple(font.clone(), if dark { Color32::GRAY } else { Color32::DARK_GRAY });
    let mut at = 0;
    let push = |job: &mut LayoutJob, from: usize, to: usize, format: TextFormat| {
        if let Some(part) = text.get(from..to)
            && !part.is_empty()
        {
            job.append(part, 0.0, format);
        }
    };
    match tokenize(text) {
        Ok(tokens) => {
            for token in tokens {
                let (start, end) = (token.span.start.min(text.len()), token.span.end.min(text.len()));
                if start > at {
                    push(&mut job, at, start, plain.clone());
                }
                let colour = token_colour(&token.kind, dark);
                push(&mut job, start.max(at), end, TextFormat::simple(font.clone(), colour));
                at = at.max(end);
            }
            push(&mut job, at, text.len(), plain);
        }
        Err(problem) => {
            let stop = problem.span.start.min(text.len());
            // The valid prefix still gets its colours.
            if let Ok(tokens) = text.get(..stop).map_or(Err(()), |prefix| tokenize(prefix).map_err(|_| ())) {
                for token in tokens {
                    let colour = token_colour(&token.kind, dark);
                    push(&mut job, at, token.span.start, plain.clone());
                    push(&mut job, token.span.start, token.span.end, TextFormat::simple(font.clone(), colour));
                    at = at.max(token.span.end);
                }
            }
            push(&mut job, at, text.len(), TextFormat::simple(font, error));
        }
    }
    job
}

impl FormulaWorkbench {
    /// The formula text shown.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Draws the workbench; edits of a named formula become inspector actions (ops).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        project: Option<&Project>,
        selection: Option<&ItemKey>,
        live: Option<&Session>,
        actions: &mut Vec<InspectorAction>,
    ) {
        let selected_formula = selection.filter(|key| key.kind == Kind::Formula);
        let item = selected_formula.and_then(|key| project.and_then(|project| project.formulas.get(&key.id)));
        match (item, selected_formula) {
            (Some(formula), Some(key)) if self.editing.as_ref() != Some(key) => {
                self.editing = Some(key.clone());
                formula.expr.text().clone_into(&mut self.text);
            }
            (Some(formula), Some(_)) if !ui.memory(|memory| memory.has_focus(ui.id().with("formula_text"))) => {
                // Undo, redo or the inspector changed it: show what the document holds.
                formula.expr.text().clone_into(&mut self.text);
            }
            (None, _) if self.editing.is_some() => {
                self.editing = None;
            }
            _ => {}
        }
        ui.horizontal(|ui| {
            match &self.editing {
                Some(key) => ui.label(RichText::new(format!("Named formula f.{}", key.id)).strong()),
                None => ui.label(RichText::new("Scratch formula (select a formula item to edit it)").weak()),
            };
        });
        let dark = ui.visuals().dark_mode;
        let error_colour = ui.visuals().error_fg_color;
        let mut layouter = |ui: &egui::Ui, text: &dyn egui::TextBuffer, wrap_width: f32| {
            let mut job = highlighted(text.as_str(), dark, error_colour);
            job.wrap.max_width = wrap_width;
            ui.fonts_mut(|fonts| fonts.layout_job(job))
        };
        let label = ui.label("Formula text");
        let response = ui
            .add(
                egui::TextEdit::multiline(&mut self.text)
                    .id(ui.id().with("formula_text"))
                    .code_editor()
                    .desired_rows(3)
                    .desired_width(f32::INFINITY)
                    .layouter(&mut layouter),
            )
            .labelled_by(label.id);
        if response.changed()
            && let (Some(key), Some(formula)) = (&self.editing, item)
        {
            let mut changed: Formula = formula.clone();
            changed.expr = Expr::new(self.text.clone());
            let shared: SharedItem = Arc::new(changed);
            let gesture = egui::Id::new(("formula_workbench", &key.id)).value();
            actions.push(InspectorAction::Edit {
                op: Op::put(shared),
                label: format!("Edit formula {}", key.id),
                gesture: Some(gesture),
            });
        }
        if response.lost_focus() {
            actions.push(InspectorAction::EndGesture);
        }
        self.result_ui(ui, project, live);
    }

    /// The value (or the error with its caret), then a sample value for each name read.
    fn result_ui(&mut self, ui: &mut egui::Ui, project: Option<&Project>, live: Option<&Session>) {
        if self.text.trim().is_empty() {
            // Nothing typed yet is not a mistake.
            ui.label(
                RichText::new("Type a formula to see its value, e.g. `2 * c.fuel + 1` or `f.beacon_strength`.").weak(),
            );
            return;
        }
        if let Some(session) = live {
            match session.trace_formula(&self.text) {
                Ok(trace) => {
                    ui.label(
                        RichText::new(format!("= {}  in the running preview", show_value(trace.value_or_nan(), None)))
                            .monospace()
                            .size(18.0),
                    );
                    trace_ui(ui, &trace);
                    return;
                }
                Err(error) => {
                    let first = error.lines().next().unwrap_or_default();
                    ui.label(
                        RichText::new(format!("The running preview cannot read it ({first}); with sample inputs:"))
                            .weak(),
                    );
                }
            }
        }
        let query = Query { project, values: self.samples.clone(), defines: Vec::new(), seed: self.seed, facing: None };
        match query::trace(&self.text, &query) {
            Ok(trace) => {
                ui.label(RichText::new(format!("= {}", show_value(trace.value_or_nan(), None))).monospace().size(18.0));
                trace_ui(ui, &trace);
            }
            Err(QueryError::Formula { error }) => {
                ui.label(RichText::new(error.render(&self.text)).monospace().color(ui.visuals().error_fg_color));
            }
            Err(QueryError::Named { name, text, error }) => {
                let message = format!("in f.{name}: {}", error.render(&text));
                ui.label(RichText::new(message).monospace().color(ui.visuals().warn_fg_color));
            }
            Err(QueryError::BadName { text, error }) => {
                let message = format!("sample `{text}`: {}", error.render(&text));
                ui.label(RichText::new(message).monospace().color(ui.visuals().warn_fg_color));
            }
        }
        let mut set = FormulaSet::new();
        if set.compile(&self.text, &AnyNames).is_err() {
            return;
        }
        let names: Vec<String> = set
            .lookups()
            .map(lookup_text)
            .filter(|name| !name.starts_with("f.") && !project.is_some_and(|project| project.stats.contains(name)))
            .collect();
        ui.separator();
        ui.horizontal(|ui| {
            ui.strong("Sample inputs");
            let label = ui.label("Seed");
            ui.add(egui::DragValue::new(&mut self.seed)).labelled_by(label.id).on_hover_text("Seed of random draws");
        });
        if names.is_empty() {
            ui.label(RichText::new("The formula reads no name.").weak());
            return;
        }
        egui::Grid::new("formula_samples").num_columns(2).striped(true).show(ui, |ui| {
            for name in names {
                let label = ui.label(RichText::new(&name).monospace());
                let mut value = self.samples.get(&name).copied().unwrap_or(0.0);
                let had = self.samples.contains_key(&name);
                let response = ui.add(egui::DragValue::new(&mut value).speed(0.1)).labelled_by(label.id);
                if response.changed() || !had {
                    self.samples.insert(name, value);
                }
                ui.end_row();
            }
        });
    }
}

/// The colour of the parts of a formula that made it false.
pub const FALSE_PART: Color32 = Color32::from_rgb(0xe5, 0x48, 0x4d);

/// A value as the trace widget shows it.
fn value_text(value: Option<f64>) -> String {
    value.map_or_else(|| "not evaluated (a branch not taken)".to_owned(), |value| show_value(value, None))
}

/// `trace`'s formula laid out in monospace: the parts that made it false in red (underlined),
/// and `hovered`'s span (byte offsets into the root's text) on a highlight.
fn trace_job(trace: &FormulaTrace, hovered: Option<Span>, ui: &egui::Ui) -> LayoutJob {
    let text = trace.text.as_str();
    let base = trace.span.start;
    let local = |span: Span| (span.start.saturating_sub(base), span.end.saturating_sub(base));
    let false_parts: Vec<(usize, usize)> = trace.false_parts().into_iter().map(|node| local(node.span)).collect();
    let hovered = hovered.map(local);
    // Cut at every boundary of a false part or the hovered span; each piece has one style.
    let mut cuts: Vec<usize> = vec![0, text.len()];
    for (start, end) in false_parts.iter().copied().chain(hovered) {
        cuts.push(start.min(text.len()));
        cuts.push(end.min(text.len()));
    }
    cuts.sort_unstable();
    cuts.dedup();
    let font = FontId::monospace(14.0);
    let normal = ui.visuals().text_color();
    let highlight = ui.visuals().selection.bg_fill;
    let mut job = LayoutJob::default();
    for pair in cuts.windows(2) {
        let [from, to] = pair else { continue };
        let Some(piece) = text.get(*from..*to) else { continue };
        let inside = |(start, end): (usize, usize)| start <= *from && *to <= end;
        let is_false = false_parts.iter().copied().any(inside);
        let mut format = TextFormat::simple(font.clone(), if is_false { FALSE_PART } else { normal });
        if is_false {
            format.underline = egui::Stroke::new(1.0, FALSE_PART);
        }
        if hovered.is_some_and(inside) {
            format.background = highlight;
        }
        job.append(piece, 0.0, format);
    }
    job
}

/// A traced formula's text: hovering a sub-expression highlights its span and shows its value
/// (in a tooltip and on the line under the text); the parts that made the formula false are
/// red (articy's simulation mode does the same). Used by the workbench, the inspector and the
/// preview's "why not".
pub fn trace_ui(ui: &mut egui::Ui, trace: &FormulaTrace) -> egui::Response {
    let galley = ui.painter().layout_job(trace_job(trace, None, ui));
    let (rect, response) = ui.allocate_exact_size(galley.size(), egui::Sense::hover());
    let label = trace.text.clone();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Label, true, label.clone()));
    let node = response.hover_pos().map(|pointer| {
        let chars = galley.cursor_from_pos(pointer - rect.min).index.0;
        let byte = trace.text.char_indices().nth(chars).map_or(trace.text.len(), |(at, _)| at);
        trace.innermost_at(trace.span.start.saturating_add(byte))
    });
    let galley = match node {
        Some(node) => ui.painter().layout_job(trace_job(trace, Some(node.span), ui)),
        None => galley,
    };
    ui.painter().galley(rect.min, galley, ui.visuals().text_color());
    let line = match node {
        Some(node) => {
            let mut line = format!("{} = {}", node.text, value_text(node.value));
            if node.makes_false {
                line.push_str(" (makes it false)");
            }
            line
        }
        None if trace.false_parts().is_empty() => {
            format!("whole formula: {} · hover a part for its value", value_text(trace.value))
        }
        None => format!(
            "whole formula: {} · red: what makes it false · hover a part for its value",
            value_text(trace.value)
        ),
    };
    ui.label(RichText::new(&line).monospace().weak());
    match node {
        Some(node) => response.on_hover_ui(|ui| {
            ui.label(RichText::new(format!("{} = {}", node.text, value_text(node.value))).monospace());
            if node.makes_false {
                ui.label(RichText::new("This part makes the formula false.").color(FALSE_PART));
            }
        }),
        None => response,
    }
}
