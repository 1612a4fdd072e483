//! "Edit the state" while playing: one row that sets a scene up in any system the project
//! plays (add a card or a token, set a turns stat, a campaign meter or a unit's stat, move a
//! unit, set a board cell). Each edit is a set-up line of the playtest language (FORMAT.md §7)
//! given to the game as an input, so a replay after a content edit keeps it and "Save as
//! playtest…" records it.

use actforge_runtime::engine::Session;
use egui::RichText;
use egui_phosphor::regular as icon;

/// What an edit does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EditKind {
    /// `create card CARD [in TOKEN]`.
    #[default]
    AddCard,
    /// `create token TOKEN`.
    AddToken,
    /// `set stat STAT VALUE` (turns).
    SetStat,
    /// `set meter METER VALUE` (campaign).
    SetMeter,
    /// `set unit UNIT STAT VALUE` (tactics).
    SetUnitStat,
    /// `place unit UNIT X Y` (tactics).
    MoveUnit,
    /// `set cell BOARD C R VALUE|empty` (boards).
    SetCell,
}

impl EditKind {
    /// The words the picker shows.
    fn label(self) -> &'static str {
        match self {
            Self::AddCard => "Add a card",
            Self::AddToken => "Open a token's window",
            Self::SetStat => "Set a stat",
            Self::SetMeter => "Set a meter",
            Self::SetUnitStat => "Set a unit's stat",
            Self::MoveUnit => "Move a unit",
            Self::SetCell => "Set a board cell",
        }
    }

    /// The edits the game of `session` can take.
    fn offered(session: &Session) -> Vec<Self> {
        let project = &session.content().project;
        let mut kinds = Vec::new();
        if !project.cards.is_empty() && !project.tokens.is_empty() {
            kinds.extend([Self::AddCard, Self::AddToken]);
        }
        if session.turns().is_some_and(|turns| !turns.stored.is_empty()) {
            kinds.push(Self::SetStat);
        }
        if session.campaign().is_some_and(|campaign| !campaign.meters.is_empty()) {
            kinds.push(Self::SetMeter);
        }
        if session.tactics().is_some_and(|battle| battle.units().next().is_some()) {
            kinds.extend([Self::SetUnitStat, Self::MoveUnit]);
        }
        if session.board().is_some() {
            kinds.push(Self::SetCell);
        }
        kinds
    }
}

/// The row's pickers and fields (editor state, kept between frames).
#[derive(Clone, Debug, Default)]
pub struct StateEdit {
    /// The edit the row makes.
    kind: Option<EditKind>,
    /// The card, stat, meter, unit or board picked.
    subject: Option<String>,
    /// The token a card goes into (none: the table), or the unit's stat.
    detail: Option<String>,
    /// The value typed (a number, or `empty` for a board cell).
    value: String,
    /// The column and row of a board cell, or X and Y of a unit's move.
    at: (u32, u32),
    /// Why the last edit was refused, shown at the row.
    refused: Option<String>,
}

impl StateEdit {
    /// Draws the row; returns the set-up line to give the game when the designer applies it.
    pub fn ui(&mut self, ui: &mut egui::Ui, session: &Session) -> Option<String> {
        let kinds = EditKind::offered(session);
        let kind = *self.kind.get_or_insert(kinds.first().copied()?);
        let kind = if kinds.contains(&kind) { kind } else { kinds.first().copied()? };
        let mut line = None;
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(format!("{} Edit the state", icon::PENCIL_SIMPLE)).weak())
                .on_hover_text("Set a scene up while playing: each edit is a line of the input log");
            let mut picked = kind;
            egui::ComboBox::from_id_salt("state_edit_kind").selected_text(kind.label()).show_ui(ui, |ui| {
                for offered in &kinds {
                    ui.selectable_value(&mut picked, *offered, offered.label());
                }
            });
            if picked != kind || self.kind != Some(kind) {
                *self = Self { kind: Some(picked), ..Self::default() };
            }
            line = self.fields_ui(ui, session, picked);
        });
        if let Some(why) = &self.refused {
            ui.colored_label(ui.visuals().error_fg_color, format!("{} {why}", icon::WARNING));
        }
        line
    }

    /// Says at the row why the edit was refused (none: it was applied).
    pub fn set_refused(&mut self, why: Option<String>) {
        self.refused = why;
    }

    fn fields_ui(&mut self, ui: &mut egui::Ui, session: &Session, kind: EditKind) -> Option<String> {
        let subjects = subjects(session, kind);
        let subject_word = match kind {
            EditKind::AddCard => "card",
            EditKind::AddToken => "token",
            EditKind::SetStat => "stat",
            EditKind::SetMeter => "meter",
            EditKind::SetUnitStat | EditKind::MoveUnit => "unit",
            EditKind::SetCell => "board",
        };
        let shown = self
            .subject
            .as_ref()
            .and_then(|id| subjects.iter().find(|(key, _)| key == id))
            .map_or_else(|| format!("Pick a {subject_word}"), |(_, label)| label.clone());
        egui::ComboBox::from_id_salt(("state_edit_subject", kind.label())).selected_text(shown).show_ui(ui, |ui| {
            for (key, label) in &subjects {
                if ui.selectable_label(self.subject.as_deref() == Some(key), label).clicked() {
                    self.subject = Some(key.clone());
                    self.value = current_value(session, kind, key, self.detail.as_deref()).unwrap_or_default();
                    self.at = start_at(session, kind, key);
                }
            }
        });
        let subject = self.subject.clone()?;
        self.detail_ui(ui, session, kind, &subject);
        let wants_value =
            matches!(kind, EditKind::SetStat | EditKind::SetMeter | EditKind::SetUnitStat | EditKind::SetCell);
        if wants_value {
            let label = ui.label("value");
            let hint = if kind == EditKind::SetCell { "a face or empty" } else { "a number" };
            ui.add(egui::TextEdit::singleline(&mut self.value).desired_width(70.0).hint_text(hint))
                .labelled_by(label.id);
        }
        let value = self.value.trim();
        let line = match kind {
            EditKind::AddCard => Some(match &self.detail {
                Some(token) => format!("create card {subject} in {token}"),
                None => format!("create card {subject}"),
            }),
            EditKind::AddToken => Some(format!("create token {subject}")),
            EditKind::SetStat => Some(format!("set stat {subject} {value}")),
            EditKind::SetMeter => Some(format!("set meter {subject} {value}")),
            EditKind::SetUnitStat => self.detail.as_ref().map(|stat| format!("set unit {subject} {stat} {value}")),
            EditKind::MoveUnit => Some(format!("place unit {subject} {} {}", self.at.0, self.at.1)),
            EditKind::SetCell => Some(format!("set cell {subject} {} {} {value}", self.at.0, self.at.1)),
        };
        let ready = line.is_some() && (!wants_value || !value.is_empty());
        let apply = ui
            .add_enabled(ready, egui::Button::new(format!("{} Apply", icon::CHECK)))
            .on_hover_text(line.as_deref().map_or_else(String::new, |line| format!("Adds the input `{line}`")));
        if apply.clicked() { line } else { None }
    }

    /// The fields after the subject: where a card goes, which stat of a unit, which cell.
    fn detail_ui(&mut self, ui: &mut egui::Ui, session: &Session, kind: EditKind, subject: &str) {
        match kind {
            EditKind::AddCard => {
                let shown = self.detail.clone().unwrap_or_else(|| "on the table".to_owned());
                egui::ComboBox::from_id_salt("state_edit_card_place").selected_text(shown).show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.detail, None, "on the table");
                    for token in &session.content().project.tokens {
                        ui.selectable_value(&mut self.detail, Some(token.id.to_string()), format!("in {}", token.id));
                    }
                });
            }
            EditKind::SetUnitStat => {
                let stats: Vec<String> = session
                    .tactics()
                    .and_then(|battle| battle.units().find(|(key, _)| *key == subject))
                    .map(|(_, unit)| unit.stats.keys().cloned().collect())
                    .unwrap_or_default();
                let shown = self.detail.clone().unwrap_or_else(|| "Pick a stat".to_owned());
                egui::ComboBox::from_id_salt("state_edit_unit_stat").selected_text(shown).show_ui(ui, |ui| {
                    for stat in &stats {
                        if ui.selectable_label(self.detail.as_deref() == Some(stat), stat).clicked() {
                            self.detail = Some(stat.clone());
                            self.value = current_value(session, kind, subject, Some(stat)).unwrap_or_default();
                        }
                    }
                });
            }
            EditKind::MoveUnit | EditKind::SetCell => {
                let (first, second) = if kind == EditKind::MoveUnit { ("x", "y") } else { ("column", "row") };
                ui.label(first);
                ui.add(egui::DragValue::new(&mut self.at.0).range(0..=9_999));
                ui.label(second);
                ui.add(egui::DragValue::new(&mut self.at.1).range(0..=9_999));
            }
            EditKind::AddToken | EditKind::SetStat | EditKind::SetMeter => {}
        }
    }
}

/// What the row can edit for `kind`: (id, the words shown).
fn subjects(session: &Session, kind: EditKind) -> Vec<(String, String)> {
    let project = &session.content().project;
    let same = |id: String| (id.clone(), id);
    match kind {
        EditKind::AddCard => {
            project.cards.iter().map(|card| (card.id.to_string(), format!("{} · {}", card.label, card.id))).collect()
        }
        EditKind::AddToken => project.tokens.iter().map(|token| same(token.id.to_string())).collect(),
        EditKind::SetStat => session
            .turns()
            .map(|turns| turns.stored.keys().map(|id| same(id.to_string())).collect())
            .unwrap_or_default(),
        EditKind::SetMeter => session
            .campaign()
            .map(|campaign| campaign.meters.keys().map(|id| same(id.to_string())).collect())
            .unwrap_or_default(),
        EditKind::SetUnitStat | EditKind::MoveUnit => session
            .tactics()
            .map(|battle| battle.units().map(|(key, _)| same(key.to_owned())).collect())
            .unwrap_or_default(),
        EditKind::SetCell => session
            .board()
            .map(|board| board.game.sides.iter().map(|side| same(side.board.to_string())).collect())
            .unwrap_or_default(),
    }
}

/// The value the subject has now, to start the field from.
fn current_value(session: &Session, kind: EditKind, subject: &str, detail: Option<&str>) -> Option<String> {
    let value = match kind {
        EditKind::SetStat => session.turns()?.stored.iter().find(|(id, _)| id.as_str() == subject).map(|(_, v)| *v)?,
        EditKind::SetMeter => {
            session.campaign()?.meters.iter().find(|(id, _)| id.as_str() == subject).map(|(_, v)| *v)?
        }
        EditKind::SetUnitStat => {
            let (_, unit) = session.tactics()?.units().find(|(key, _)| *key == subject)?;
            *unit.stats.get(detail?)?
        }
        EditKind::AddCard | EditKind::AddToken | EditKind::MoveUnit | EditKind::SetCell => return None,
    };
    Some(actforge_runtime::number::show_short(value))
}

/// Where the place fields start: the unit's own cell, or a board's first cell.
fn start_at(session: &Session, kind: EditKind, subject: &str) -> (u32, u32) {
    match kind {
        EditKind::MoveUnit => session
            .tactics()
            .and_then(|battle| battle.units().find(|(key, _)| *key == subject))
            .map_or((0, 0), |(_, unit)| (u32::from(unit.spot.cell_x), u32::from(unit.spot.cell_y))),
        _ => (1, 1),
    }
}
