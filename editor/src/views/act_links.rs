//! The links between acts, as the act-chain graph reads and edits them: every kind of link
//! (next, alt, spawned, branch-out, force, callback, game over), where it is stored in the act,
//! and the ops that add or remove one.

use std::sync::Arc;

use actforge_runtime::model::{Act, ActLink, Id, PathModifier, PathOp, TableOp};
use actforge_runtime::{Kind, Project};
use egui::Color32;
use egui_snarl::ui::WireStyle;

use crate::document::{ItemKey, Op, SharedItem};

/// A kind of link from one act to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// `next_acts`: candidates run after the act.
    Next,
    /// `alt_acts`: alternatives the run may switch into.
    Alt,
    /// `spawned_acts` and spawn-act table modifiers: acts started in new tokens.
    Spawned,
    /// A branch-out path modifier: try the act, then come back.
    BranchOut,
    /// A force-act path modifier.
    Force,
    /// A set-callback path modifier: the act remembered as the callback.
    Callback,
    /// A game-over path modifier: the act spawned after the reset.
    GameOver,
}

impl LinkKind {
    /// Every kind, in pin order.
    pub const ALL: [LinkKind; 7] = [
        LinkKind::Next,
        LinkKind::Alt,
        LinkKind::Spawned,
        LinkKind::BranchOut,
        LinkKind::Force,
        LinkKind::Callback,
        LinkKind::GameOver,
    ];

    /// The name shown on pins and in the legend.
    pub fn label(self) -> &'static str {
        match self {
            LinkKind::Next => "next",
            LinkKind::Alt => "alt",
            LinkKind::Spawned => "spawned",
            LinkKind::BranchOut => "branch out",
            LinkKind::Force => "force",
            LinkKind::Callback => "callback",
            LinkKind::GameOver => "game over",
        }
    }

    /// The colour of its pin and wires.
    pub fn colour(self) -> Color32 {
        match self {
            LinkKind::Next => Color32::from_rgb(0xe8, 0x8a, 0x5c),
            LinkKind::Alt => Color32::from_rgb(0x5b, 0xa4, 0xe6),
            LinkKind::Spawned => Color32::from_rgb(0x7f, 0xd1, 0x6d),
            LinkKind::BranchOut => Color32::from_rgb(0xc7, 0x7d, 0xd8),
            LinkKind::Force => Color32::from_rgb(0xef, 0x6f, 0x6c),
            LinkKind::Callback => Color32::from_rgb(0x56, 0xb6, 0xc2),
            LinkKind::GameOver => Color32::from_rgb(0x9a, 0xa9, 0xb8),
        }
    }

    /// How its wires are drawn (each kind its own shape as well as its own colour).
    pub(super) fn wire_style(self) -> WireStyle {
        match self {
            LinkKind::Next => WireStyle::Bezier5,
            LinkKind::Alt => WireStyle::Bezier3,
            LinkKind::Spawned => WireStyle::AxisAligned { corner_radius: 12.0 },
            LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => WireStyle::Line,
        }
    }

    /// The path-modifier op of the path kinds.
    fn path_op(self) -> Option<PathOp> {
        match self {
            LinkKind::BranchOut => Some(PathOp::BranchOut),
            LinkKind::Force => Some(PathOp::ForceAct),
            LinkKind::Callback => Some(PathOp::SetCallback),
            LinkKind::GameOver => Some(PathOp::GameOver),
            LinkKind::Next | LinkKind::Alt | LinkKind::Spawned => None,
        }
    }
}

/// One link of an act: its kind, the target act, and what gates it (a chance or a rule).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActEdge {
    /// The kind of link.
    pub kind: LinkKind,
    /// The target act's id.
    pub to: String,
    /// `40%` or `rule ID`, when the link is conditional.
    pub gate: Option<String>,
}

fn gate(link: &ActLink) -> Option<String> {
    if let Some(rule) = &link.rule {
        return Some(format!("rule {rule}"));
    }
    (!link.chance.is_zero()).then(|| format!("{}%", link.chance.text()))
}

/// Every link of `act`, in kind then list order.
pub fn act_edges(act: &Act) -> Vec<ActEdge> {
    let mut edges = Vec::new();
    let lists =
        [(LinkKind::Next, &act.next_acts), (LinkKind::Alt, &act.alt_acts), (LinkKind::Spawned, &act.spawned_acts)];
    for (kind, links) in lists {
        edges.extend(links.iter().map(|link| ActEdge { kind, to: link.act.as_str().to_owned(), gate: gate(link) }));
    }
    for modifier in &act.effects.table_modifiers {
        if modifier.op == TableOp::SpawnAct {
            edges.push(ActEdge { kind: LinkKind::Spawned, to: modifier.act.as_str().to_owned(), gate: None });
        }
    }
    for modifier in &act.effects.path_modifiers {
        let kind = LinkKind::ALL.into_iter().find(|kind| kind.path_op() == Some(modifier.op));
        if let (Some(kind), Some(to)) = (kind, &modifier.act) {
            edges.push(ActEdge { kind, to: to.as_str().to_owned(), gate: None });
        }
    }
    edges.sort_by_key(|edge| edge.kind);
    edges
}

/// The act with a link of `kind` to `to` added; `None` when it already has it.
pub fn with_link(act: &Act, kind: LinkKind, to: &str) -> Option<Act> {
    if act_edges(act).iter().any(|edge| edge.kind == kind && edge.to == to) {
        return None;
    }
    let mut changed = act.clone();
    match kind {
        LinkKind::Next => changed.next_acts.push(ActLink::to(to)),
        LinkKind::Alt => changed.alt_acts.push(ActLink::to(to)),
        LinkKind::Spawned => changed.spawned_acts.push(ActLink::to(to)),
        LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => {
            let op = kind.path_op()?;
            changed.effects.path_modifiers.push(PathModifier { op, act: Some(Id::new(to)), text: String::new() });
        }
    }
    Some(changed)
}

/// The act with every link of `kind` to `to` removed (`to` = `None`: every link of `kind`);
/// `None` when it has no such link.
pub fn without_link(act: &Act, kind: LinkKind, to: Option<&str>) -> Option<Act> {
    let hit = |target: &str| to.is_none_or(|to| to == target);
    let mut changed = act.clone();
    match kind {
        LinkKind::Next => changed.next_acts.retain(|link| !hit(link.act.as_str())),
        LinkKind::Alt => changed.alt_acts.retain(|link| !hit(link.act.as_str())),
        LinkKind::Spawned => {
            changed.spawned_acts.retain(|link| !hit(link.act.as_str()));
            changed.effects.table_modifiers.retain(|m| !(m.op == TableOp::SpawnAct && hit(m.act.as_str())));
        }
        LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => {
            let op = kind.path_op()?;
            changed.effects.path_modifiers.retain(|m| !(m.op == op && m.act.as_ref().is_some_and(|a| hit(a.as_str()))));
        }
    }
    (changed != *act).then_some(changed)
}

/// The op that links `from` to `to` with `kind`, and its undo label; `None` when either act is
/// missing or the link exists.
pub fn link_op(project: &Project, from: &str, kind: LinkKind, to: &str) -> Option<(Op, String)> {
    let act = project.acts.get(from)?;
    project.acts.get(to)?;
    let changed = with_link(act, kind, to)?;
    Some((Op::put(Arc::new(changed) as SharedItem), format!("Link {from} → {to} ({})", kind.label())))
}

/// The op that removes the links of `kind` from `from` (to `to`, or all), and its undo label.
pub fn unlink_op(project: &Project, from: &str, kind: LinkKind, to: Option<&str>) -> Option<(Op, String)> {
    let act = project.acts.get(from)?;
    let changed = without_link(act, kind, to)?;
    let label = match to {
        Some(to) => format!("Unlink {from} → {to} ({})", kind.label()),
        None => format!("Unlink every {} link of {from}", kind.label()),
    };
    Some((Op::put(Arc::new(changed) as SharedItem), label))
}

/// The op that removes the act `id` and every link to it, as one step.
pub fn delete_act_op(project: &Project, id: &str) -> Option<Op> {
    project.acts.get(id)?;
    let mut ops = vec![Op::remove(ItemKey::new(Kind::Act, id))];
    for act in project.acts.iter().filter(|act| act.id.as_str() != id) {
        let mut changed = act.clone();
        for kind in LinkKind::ALL {
            if let Some(without) = without_link(&changed, kind, Some(id)) {
                changed = without;
            }
        }
        if changed != *act {
            ops.push(Op::put(Arc::new(changed) as SharedItem));
        }
    }
    Some(Op::Batch(ops))
}

/// A fresh act id (`new_act`, `new_act_2`…).
pub(super) fn fresh_act_id(project: &Project) -> String {
    let mut id = "new_act".to_owned();
    let mut n = 2;
    while project.acts.get(&id).is_some() {
        id = format!("new_act_{n}");
        n += 1;
    }
    id
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn act(id: &str) -> Act {
        Act { id: Id::new(id), ..Act::default() }
    }

    #[test]
    fn links_are_added_once_and_removed() {
        let a = act("a");
        let linked = with_link(&a, LinkKind::Next, "b").unwrap();
        assert_eq!(linked.next_acts, vec![ActLink::to("b")]);
        assert!(with_link(&linked, LinkKind::Next, "b").is_none());
        let forced = with_link(&linked, LinkKind::Force, "c").unwrap();
        assert_eq!(
            act_edges(&forced).iter().map(|e| (e.kind, e.to.as_str())).collect::<Vec<_>>(),
            vec![(LinkKind::Next, "b"), (LinkKind::Force, "c")]
        );
        let back = without_link(&forced, LinkKind::Force, Some("c")).unwrap();
        assert_eq!(back, linked);
        assert!(without_link(&back, LinkKind::Alt, None).is_none());
    }

    #[test]
    fn deleting_an_act_removes_the_links_to_it_in_one_step() {
        let mut project = Project::default();
        project.acts.insert(with_link(&act("a"), LinkKind::Next, "b").unwrap());
        project.acts.insert(act("b"));
        let Some(Op::Batch(ops)) = delete_act_op(&project, "b") else { panic!("a batch") };
        assert_eq!(ops.len(), 2);
    }
}
