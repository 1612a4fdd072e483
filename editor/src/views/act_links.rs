//! The links between acts, as the act-chain graph reads and edits them: every kind of link
//! (next, alt, spawned, spawn token, branch-out, force, callback, game over), where it is
//! stored, and the ops that add or remove one.
//!
//! A link is stored either in the act itself (its next, alt and spawned lists, its table and
//! path modifiers) or in a rule the act runs: its furthermore rules, its on-spawn rule, and
//! the trigger rules of the aspects and cards its act modifiers run by name (`RunTriggers`
//! with a concrete fragment), followed on through those rules' own furthermore rules and
//! triggers. [`act_edges`] finds both; a rule-borne edge carries the rule chain it lives in
//! (`via`), which [`unlink_edge_op`] uses to remove it from the right rule. Triggers run
//! because of what a window happens to hold at completion are not followed: which they are is
//! only known while playing.

use std::collections::BTreeSet;
use std::sync::Arc;

use actforge_runtime::model::{
    Act, ActLink, ActOp, Effects, FragmentRef, Id, PathModifier, PathOp, TableModifier, TableOp,
};
use actforge_runtime::{Kind, Project};
use egui::Color32;

use crate::document::{ItemKey, Op, SharedItem};

/// How many rules deep [`act_edges`] looks for links. Cycles stop earlier (a rule is followed
/// once per act); the bound keeps a long acyclic chain from costing a `via` list per rule, and
/// a longer chain would not read on a wire anyway.
pub const MAX_VIA_DEPTH: usize = 16;

/// A kind of link from one act to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// `next_acts`: candidates run after the act.
    Next,
    /// `alt_acts`: alternatives the run may switch into.
    Alt,
    /// `spawned_acts` and spawn-act table modifiers: acts started in new tokens.
    Spawned,
    /// A spawn-token table modifier: an idle token of the target act's token type (the act
    /// itself is not started).
    SpawnToken,
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
    pub const ALL: [LinkKind; 8] = [
        LinkKind::Next,
        LinkKind::Alt,
        LinkKind::Spawned,
        LinkKind::SpawnToken,
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
            LinkKind::SpawnToken => "spawn token",
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
            // Pink: the yellows are taken by the preview's highlight.
            LinkKind::SpawnToken => Color32::from_rgb(0xf5, 0x9a, 0xc8),
            LinkKind::BranchOut => Color32::from_rgb(0xc7, 0x7d, 0xd8),
            LinkKind::Force => Color32::from_rgb(0xef, 0x6f, 0x6c),
            LinkKind::Callback => Color32::from_rgb(0x56, 0xb6, 0xc2),
            LinkKind::GameOver => Color32::from_rgb(0x9a, 0xa9, 0xb8),
        }
    }

    /// The path-modifier op of the path kinds.
    fn path_op(self) -> Option<PathOp> {
        match self {
            LinkKind::BranchOut => Some(PathOp::BranchOut),
            LinkKind::Force => Some(PathOp::ForceAct),
            LinkKind::Callback => Some(PathOp::SetCallback),
            LinkKind::GameOver => Some(PathOp::GameOver),
            LinkKind::Next | LinkKind::Alt | LinkKind::Spawned | LinkKind::SpawnToken => None,
        }
    }

    /// The kind of a path modifier's link; `None` for the ops that name no act.
    fn of_path_op(op: PathOp) -> Option<LinkKind> {
        // Spelled out, not searched in `ALL`: a new op must be placed here by whoever adds it.
        match op {
            PathOp::BranchOut => Some(LinkKind::BranchOut),
            PathOp::ForceAct => Some(LinkKind::Force),
            PathOp::SetCallback => Some(LinkKind::Callback),
            PathOp::GameOver => Some(LinkKind::GameOver),
            PathOp::Callback | PathOp::EndGame | PathOp::Warning | PathOp::Error => None,
        }
    }

    /// The kind of a table modifier's link.
    fn of_table_op(op: TableOp) -> LinkKind {
        match op {
            TableOp::SpawnAct => LinkKind::Spawned,
            TableOp::SpawnToken => LinkKind::SpawnToken,
        }
    }
}

/// One link of an act: its kind, the target act, what gates it (a chance or a rule), and the
/// rules it lives in when it is not stored in the act itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActEdge {
    /// The kind of link.
    pub kind: LinkKind,
    /// The target act's id.
    pub to: String,
    /// `40%` or `rule ID`, when the link is conditional.
    pub gate: Option<String>,
    /// The rule ids the link is reached through, from the act outward (the last one holds it);
    /// empty for a link stored in the act itself.
    pub via: Vec<String>,
}

impl ActEdge {
    fn direct(kind: LinkKind, to: &str, gate: Option<String>) -> Self {
        Self { kind, to: to.to_owned(), gate, via: Vec::new() }
    }

    /// Whether the link is stored in the act itself (not in a rule).
    pub fn is_direct(&self) -> bool {
        self.via.is_empty()
    }

    /// The short text for its wire: the gate and the rules it lives in (`40%`, `rule X`,
    /// `via rule night_check`, `via rules a › b`); empty for an unconditional direct link.
    pub fn label(&self) -> String {
        let via = match self.via.as_slice() {
            [] => None,
            [rule] => Some(format!("via rule {rule}")),
            chain => Some(format!("via rules {}", chain.join(" › "))),
        };
        [self.gate.clone(), via].into_iter().flatten().collect::<Vec<_>>().join(" · ")
    }
}

fn gate(link: &ActLink) -> Option<String> {
    if let Some(rule) = &link.rule {
        return Some(format!("rule {rule}"));
    }
    (!link.chance.is_zero()).then(|| format!("{}%", link.chance.text()))
}

/// The links stored in the table and path modifiers of `effects`, in list order.
fn modifier_links(effects: &Effects) -> impl Iterator<Item = (LinkKind, &str)> {
    let table = effects.table_modifiers.iter().map(|m| (LinkKind::of_table_op(m.op), m.act.as_str()));
    let path =
        effects.path_modifiers.iter().filter_map(|m| Some((LinkKind::of_path_op(m.op)?, m.act.as_ref()?.as_str())));
    table.chain(path)
}

/// `effects` without the modifier links `hit` picks.
pub(super) fn remove_modifier_links(effects: &mut Effects, hit: impl Fn(LinkKind, &str) -> bool) {
    effects.table_modifiers.retain(|m| !hit(LinkKind::of_table_op(m.op), m.act.as_str()));
    effects
        .path_modifiers
        .retain(|m| !LinkKind::of_path_op(m.op).zip(m.act.as_ref()).is_some_and(|(kind, act)| hit(kind, act.as_str())));
}

/// The links stored in the act itself, in list order (lists, then table, then path modifiers).
fn direct_edges(act: &Act) -> Vec<ActEdge> {
    let mut edges = Vec::new();
    let lists =
        [(LinkKind::Next, &act.next_acts), (LinkKind::Alt, &act.alt_acts), (LinkKind::Spawned, &act.spawned_acts)];
    for (kind, links) in lists {
        edges.extend(links.iter().map(|link| ActEdge::direct(kind, link.act.as_str(), gate(link))));
    }
    edges.extend(modifier_links(&act.effects).map(|(kind, to)| ActEdge::direct(kind, to, None)));
    edges
}

/// The rules `effects` runs, in the engine's order: the trigger rules of the aspects and cards
/// its act modifiers name (they run with the modifiers), then its furthermore rules. Triggers
/// of a special fragment (this card, the matched cards…) depend on play and are left out.
fn rules_run_by<'a>(project: &'a Project, effects: &'a Effects) -> Vec<&'a str> {
    let mut rules = Vec::new();
    for modifier in effects.act_modifiers.iter().filter(|m| m.op == ActOp::RunTriggers) {
        let triggers = match &modifier.fragment {
            Some(FragmentRef::Aspect(id)) => project.aspects.get(id.as_str()).map(|aspect| aspect.rules.as_slice()),
            Some(FragmentRef::Card(id)) => project.cards.get(id.as_str()).map(|card| card.rules.as_slice()),
            _ => None,
        };
        rules.extend(triggers.unwrap_or_default().iter().map(Id::as_str));
    }
    rules.extend(effects.furthermore.iter().map(Id::as_str));
    rules
}

/// Appends the links of `rules` and of the rules they run, depth first, each rule once
/// (`seen`), `via` being the chain that led here.
fn follow_rules<'a>(
    project: &'a Project,
    rules: Vec<&'a str>,
    via: &mut Vec<String>,
    seen: &mut BTreeSet<&'a str>,
    edges: &mut Vec<ActEdge>,
) {
    if via.len() >= MAX_VIA_DEPTH {
        return;
    }
    for id in rules {
        // A missing rule is validation's diagnostic; here it just holds no links.
        let Some(rule) = project.rules.get(id) else { continue };
        if !seen.insert(id) {
            continue;
        }
        via.push(id.to_owned());
        edges.extend(modifier_links(&rule.effects).map(|(kind, to)| ActEdge {
            kind,
            to: to.to_owned(),
            gate: None,
            via: via.clone(),
        }));
        follow_rules(project, rules_run_by(project, &rule.effects), via, seen, edges);
        via.pop();
    }
}

/// Every link of `act`: those stored in it, then those in the rules it runs (its on-spawn rule,
/// the triggers its act modifiers run by name, its furthermore rules, and on through theirs,
/// up to [`MAX_VIA_DEPTH`] rules deep). Ordered by kind, direct before rule-borne, then list
/// order; identical edges once.
pub fn act_edges(project: &Project, act: &Act) -> Vec<ActEdge> {
    let mut edges = direct_edges(act);
    let mut start: Vec<&str> = act.on_spawn.iter().map(Id::as_str).collect();
    start.extend(rules_run_by(project, &act.effects));
    follow_rules(project, start, &mut Vec::new(), &mut BTreeSet::new(), &mut edges);
    // A stable sort: list order survives within a kind.
    edges.sort_by_key(|edge| (edge.kind, !edge.is_direct()));
    let mut unique: Vec<ActEdge> = Vec::with_capacity(edges.len());
    for edge in edges {
        if !unique.contains(&edge) {
            unique.push(edge);
        }
    }
    unique
}

/// The act with a link of `kind` to `to` added; `None` when it already has it (links in rules
/// do not count: the new one is stored in the act).
pub fn with_link(act: &Act, kind: LinkKind, to: &str) -> Option<Act> {
    if direct_edges(act).iter().any(|edge| edge.kind == kind && edge.to == to) {
        return None;
    }
    let mut changed = act.clone();
    match kind {
        LinkKind::Next => changed.next_acts.push(ActLink::to(to)),
        LinkKind::Alt => changed.alt_acts.push(ActLink::to(to)),
        LinkKind::Spawned => changed.spawned_acts.push(ActLink::to(to)),
        LinkKind::SpawnToken => {
            changed.effects.table_modifiers.push(TableModifier { op: TableOp::SpawnToken, act: Id::new(to) });
        }
        LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => {
            let op = kind.path_op()?;
            changed.effects.path_modifiers.push(PathModifier { op, act: Some(Id::new(to)), text: String::new() });
        }
    }
    Some(changed)
}

/// The act with every link of `kind` to `to` stored in it removed (`to` = `None`: every link of
/// `kind`); `None` when it has no such link. Links in rules are left alone.
pub fn without_link(act: &Act, kind: LinkKind, to: Option<&str>) -> Option<Act> {
    let hit = |target: &str| to.is_none_or(|to| to == target);
    let mut changed = act.clone();
    match kind {
        LinkKind::Next => changed.next_acts.retain(|link| !hit(link.act.as_str())),
        LinkKind::Alt => changed.alt_acts.retain(|link| !hit(link.act.as_str())),
        LinkKind::Spawned => changed.spawned_acts.retain(|link| !hit(link.act.as_str())),
        LinkKind::SpawnToken | LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => {}
    }
    remove_modifier_links(&mut changed.effects, |k, target| k == kind && hit(target));
    (changed != *act).then_some(changed)
}

/// The act without the direct `edge`: the list entries with its target and gate, and (an
/// ungated edge) the modifiers with its kind and target.
pub(super) fn without_direct_edge(act: &Act, edge: &ActEdge) -> Option<Act> {
    let mut changed = act.clone();
    let list = match edge.kind {
        LinkKind::Next => Some(&mut changed.next_acts),
        LinkKind::Alt => Some(&mut changed.alt_acts),
        LinkKind::Spawned => Some(&mut changed.spawned_acts),
        LinkKind::SpawnToken | LinkKind::BranchOut | LinkKind::Force | LinkKind::Callback | LinkKind::GameOver => None,
    };
    if let Some(list) = list {
        list.retain(|link| !(link.act.as_str() == edge.to && gate(link) == edge.gate));
    }
    // Modifiers have no gate: a gated edge is only ever a list entry.
    if edge.gate.is_none() {
        remove_modifier_links(&mut changed.effects, |kind, to| kind == edge.kind && to == edge.to);
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

/// The op that removes the links of `kind` stored in `from` (to `to`, or all), and its undo
/// label. Links in rules stay: [`unlink_edge_op`] removes one of those.
pub fn unlink_op(project: &Project, from: &str, kind: LinkKind, to: Option<&str>) -> Option<(Op, String)> {
    let act = project.acts.get(from)?;
    let changed = without_link(act, kind, to)?;
    let label = match to {
        Some(to) => format!("Unlink {from} → {to} ({})", kind.label()),
        None => format!("Unlink every {} link of {from}", kind.label()),
    };
    Some((Op::put(Arc::new(changed) as SharedItem), label))
}

/// The op that removes one drawn `edge` of the act `from` where it is stored, and its undo
/// label: a direct edge from the act (the entries with its target and gate), a rule-borne one
/// from the rule named last in its `via` (that rule's modifiers of its kind and target; the
/// rule itself stays, and so does the link for every other act that runs it). `None` when the
/// act or the rule is missing or no longer holds the edge.
pub fn unlink_edge_op(project: &Project, from: &str, edge: &ActEdge) -> Option<(Op, String)> {
    let act = project.acts.get(from)?;
    let link = format!("{from} → {}", edge.to);
    let Some(rule_id) = edge.via.last() else {
        let changed = without_direct_edge(act, edge)?;
        let gate = edge.gate.as_ref().map(|gate| format!(", {gate}")).unwrap_or_default();
        return Some((
            Op::put(Arc::new(changed) as SharedItem),
            format!("Unlink {link} ({}{gate})", edge.kind.label()),
        ));
    };
    let rule = project.rules.get(rule_id)?;
    let mut changed = rule.clone();
    remove_modifier_links(&mut changed.effects, |kind, to| kind == edge.kind && to == edge.to);
    (changed != *rule).then(|| {
        let label = format!("Unlink {link} ({}, in rule {rule_id})", edge.kind.label());
        (Op::put(Arc::new(changed) as SharedItem), label)
    })
}

/// The op that removes the act `id` and every link to it stored in acts, as one step. Links to
/// it inside rules are left (validation reports them): rules are shared items, run by other
/// acts, cards and turns too, and deleting an act should not rewrite them unasked.
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
    #![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
    use actforge_runtime::model::{ActModifier, Aspect, Card, Expr, Rule};

    use super::*;

    fn act(id: &str) -> Act {
        Act { id: Id::new(id), ..Act::default() }
    }

    fn rule(id: &str, effects: Effects) -> Rule {
        Rule { id: Id::new(id), effects, ..Rule::default() }
    }

    fn path(op: PathOp, to: &str) -> PathModifier {
        PathModifier { op, act: Some(Id::new(to)), text: String::new() }
    }

    fn table(op: TableOp, to: &str) -> TableModifier {
        TableModifier { op, act: Id::new(to) }
    }

    fn further(rules: &[&str]) -> Vec<Id<Rule>> {
        rules.iter().map(|id| Id::new(*id)).collect()
    }

    /// (kind, target, via) of each edge, to compare whole lists at once.
    fn summary(edges: &[ActEdge]) -> Vec<(LinkKind, &str, Vec<&str>)> {
        edges.iter().map(|e| (e.kind, e.to.as_str(), e.via.iter().map(String::as_str).collect())).collect()
    }

    #[test]
    fn links_are_added_once_and_removed() {
        let project = Project::default();
        let a = act("a");
        let linked = with_link(&a, LinkKind::Next, "b").unwrap();
        assert_eq!(linked.next_acts, vec![ActLink::to("b")]);
        assert!(with_link(&linked, LinkKind::Next, "b").is_none());
        let forced = with_link(&linked, LinkKind::Force, "c").unwrap();
        assert_eq!(
            act_edges(&project, &forced).iter().map(|e| (e.kind, e.to.as_str())).collect::<Vec<_>>(),
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

    #[test]
    fn deleting_an_act_leaves_the_rules_that_link_to_it() {
        let mut project = Project::default();
        project
            .acts
            .insert(Act { effects: Effects { furthermore: further(&["r"]), ..Effects::default() }, ..act("a") });
        project.acts.insert(act("b"));
        project
            .rules
            .insert(rule("r", Effects { path_modifiers: vec![path(PathOp::ForceAct, "b")], ..Effects::default() }));
        let Some(Op::Batch(ops)) = delete_act_op(&project, "b") else { panic!("a batch") };
        assert_eq!(ops.len(), 1, "only the act's removal: {ops:?}");
    }

    #[test]
    fn spawn_token_is_its_own_kind_with_its_own_label_colour_and_shape() {
        let project = Project::default();
        let linked = with_link(&act("a"), LinkKind::SpawnToken, "b").unwrap();
        assert_eq!(linked.effects.table_modifiers, vec![table(TableOp::SpawnToken, "b")]);
        assert!(with_link(&linked, LinkKind::SpawnToken, "b").is_none());
        // The spawned kind is another link: an act spawn of the same target is still added.
        let both = with_link(&linked, LinkKind::Spawned, "b").unwrap();
        assert_eq!(
            summary(&act_edges(&project, &both)),
            vec![(LinkKind::Spawned, "b", vec![]), (LinkKind::SpawnToken, "b", vec![])]
        );
        assert_eq!(without_link(&both, LinkKind::SpawnToken, Some("b")).unwrap().effects.table_modifiers, vec![]);
        assert_eq!(LinkKind::SpawnToken.label(), "spawn token");
        assert!(LinkKind::ALL.contains(&LinkKind::SpawnToken));
        for (i, a) in LinkKind::ALL.iter().enumerate() {
            for b in &LinkKind::ALL[i + 1..] {
                assert_ne!(a.colour(), b.colour(), "{a:?} and {b:?}");
                assert_ne!(a.label(), b.label());
            }
        }
    }

    #[test]
    fn links_in_a_furthermore_chain_two_deep_are_found_after_the_direct_ones() {
        let mut project = Project::default();
        let mut a = with_link(&act("a"), LinkKind::Next, "e").unwrap();
        a = with_link(&a, LinkKind::Force, "b").unwrap();
        a.effects.furthermore = further(&["r1"]);
        project.rules.insert(rule(
            "r1",
            Effects {
                path_modifiers: vec![path(PathOp::ForceAct, "b"), path(PathOp::EndGame, "")],
                furthermore: further(&["r2"]),
                ..Effects::default()
            },
        ));
        project.rules.insert(rule(
            "r2",
            Effects {
                table_modifiers: vec![table(TableOp::SpawnAct, "d")],
                path_modifiers: vec![path(PathOp::GameOver, "c")],
                ..Effects::default()
            },
        ));
        let edges = act_edges(&project, &a);
        assert_eq!(
            summary(&edges),
            vec![
                (LinkKind::Next, "e", vec![]),
                (LinkKind::Spawned, "d", vec!["r1", "r2"]),
                (LinkKind::Force, "b", vec![]),
                (LinkKind::Force, "b", vec!["r1"]),
                (LinkKind::GameOver, "c", vec!["r1", "r2"]),
            ]
        );
        assert_eq!(edges[0].label(), "");
        assert_eq!(edges[3].label(), "via rule r1");
        assert_eq!(edges[4].label(), "via rules r1 › r2");
        assert!(edges[0].is_direct() && !edges[3].is_direct());
    }

    #[test]
    fn the_on_spawn_rule_and_named_triggers_are_followed() {
        let mut project = Project::default();
        let mut a = act("a");
        a.on_spawn = Some(Id::new("spawned"));
        a.effects.act_modifiers = vec![
            ActModifier {
                op: ActOp::RunTriggers,
                fragment: Some(FragmentRef::Aspect(Id::new("storm"))),
                ..ActModifier::default()
            },
            ActModifier {
                op: ActOp::RunTriggers,
                fragment: Some(FragmentRef::Card(Id::new("map"))),
                ..ActModifier::default()
            },
            // Not a trigger run, and a fragment known only in play: neither is followed.
            ActModifier {
                op: ActOp::Adjust,
                fragment: Some(FragmentRef::Aspect(Id::new("calm"))),
                ..ActModifier::default()
            },
            ActModifier { op: ActOp::RunTriggers, fragment: Some(FragmentRef::ThisCard), ..ActModifier::default() },
        ];
        project.aspects.insert(Aspect { id: Id::new("storm"), rules: further(&["gale"]), ..Aspect::default() });
        project.aspects.insert(Aspect { id: Id::new("calm"), rules: further(&["lull"]), ..Aspect::default() });
        project.cards.insert(Card { id: Id::new("map"), rules: further(&["chart"]), ..Card::default() });
        project.rules.insert(rule(
            "spawned",
            Effects { path_modifiers: vec![path(PathOp::SetCallback, "home")], ..Effects::default() },
        ));
        project.rules.insert(rule(
            "gale",
            Effects { table_modifiers: vec![table(TableOp::SpawnToken, "shelter")], ..Effects::default() },
        ));
        project.rules.insert(rule(
            "chart",
            Effects { path_modifiers: vec![path(PathOp::BranchOut, "island")], ..Effects::default() },
        ));
        project.rules.insert(rule(
            "lull",
            Effects { path_modifiers: vec![path(PathOp::ForceAct, "nowhere")], ..Effects::default() },
        ));
        assert_eq!(
            summary(&act_edges(&project, &a)),
            vec![
                (LinkKind::SpawnToken, "shelter", vec!["gale"]),
                (LinkKind::BranchOut, "island", vec!["chart"]),
                (LinkKind::Callback, "home", vec!["spawned"]),
            ]
        );
    }

    #[test]
    fn cyclic_rules_end_and_a_rule_reached_twice_gives_its_links_once() {
        let mut project = Project::default();
        let mut a = act("a");
        a.on_spawn = Some(Id::new("r1"));
        a.effects.furthermore = further(&["r1", "r2"]);
        project.rules.insert(rule(
            "r1",
            Effects {
                path_modifiers: vec![path(PathOp::ForceAct, "b")],
                furthermore: further(&["r1", "r2"]),
                ..Effects::default()
            },
        ));
        project.rules.insert(rule(
            "r2",
            Effects {
                path_modifiers: vec![path(PathOp::ForceAct, "c")],
                furthermore: further(&["r1"]),
                ..Effects::default()
            },
        ));
        assert_eq!(
            summary(&act_edges(&project, &a)),
            vec![(LinkKind::Force, "b", vec!["r1"]), (LinkKind::Force, "c", vec!["r1", "r2"])]
        );
    }

    #[test]
    fn missing_rules_aspects_and_cards_are_skipped() {
        let mut project = Project::default();
        let mut a = act("a");
        a.on_spawn = Some(Id::new("gone"));
        a.effects.furthermore = further(&["nope", "r"]);
        a.effects.act_modifiers = vec![ActModifier {
            op: ActOp::RunTriggers,
            fragment: Some(FragmentRef::Aspect(Id::new("no_aspect"))),
            ..ActModifier::default()
        }];
        project.rules.insert(rule(
            "r",
            Effects {
                path_modifiers: vec![path(PathOp::GameOver, "b")],
                furthermore: further(&["missing"]),
                ..Effects::default()
            },
        ));
        assert_eq!(summary(&act_edges(&project, &a)), vec![(LinkKind::GameOver, "b", vec!["r"])]);
    }

    #[test]
    fn a_long_chain_stops_at_the_depth_bound() {
        let mut project = Project::default();
        let mut a = act("a");
        a.effects.furthermore = further(&["r0"]);
        for i in 0..MAX_VIA_DEPTH * 3 {
            let next = format!("r{}", i + 1);
            project.rules.insert(rule(
                &format!("r{i}"),
                Effects {
                    path_modifiers: vec![path(PathOp::ForceAct, &format!("act{i}"))],
                    furthermore: further(&[&next]),
                    ..Effects::default()
                },
            ));
        }
        let edges = act_edges(&project, &a);
        assert_eq!(edges.len(), MAX_VIA_DEPTH);
        assert!(edges.iter().all(|edge| edge.via.len() <= MAX_VIA_DEPTH));
    }

    #[test]
    fn gates_are_labelled_and_identical_direct_links_drawn_once() {
        let project = Project::default();
        let mut a = act("a");
        a.next_acts = vec![
            ActLink { chance: Expr::int(40), ..ActLink::to("b") },
            ActLink::to("b"),
            ActLink::to("b"),
            ActLink { rule: Some(Id::new("lucky")), ..ActLink::to("c") },
        ];
        let edges = act_edges(&project, &a);
        assert_eq!(edges.iter().map(ActEdge::label).collect::<Vec<_>>(), vec!["40%", "", "rule lucky"]);
    }

    #[test]
    fn unlinking_a_rule_edge_removes_exactly_its_modifiers_from_the_rule_holding_it() {
        let mut project = Project::default();
        let mut a = act("a");
        a.effects.furthermore = further(&["r1"]);
        a.effects.path_modifiers = vec![path(PathOp::ForceAct, "b")];
        project.acts.insert(a);
        let r1 = rule(
            "r1",
            Effects {
                path_modifiers: vec![path(PathOp::ForceAct, "b")],
                furthermore: further(&["r2"]),
                ..Effects::default()
            },
        );
        let r2 = rule(
            "r2",
            Effects {
                table_modifiers: vec![table(TableOp::SpawnAct, "b"), table(TableOp::SpawnToken, "b")],
                path_modifiers: vec![
                    path(PathOp::EndGame, ""),
                    path(PathOp::ForceAct, "b"),
                    path(PathOp::ForceAct, "c"),
                ],
                ..Effects::default()
            },
        );
        project.rules.insert(r1.clone());
        project.rules.insert(r2.clone());
        let a = project.acts.get("a").unwrap().clone();
        let edge = act_edges(&project, &a)
            .into_iter()
            .find(|edge| edge.kind == LinkKind::Force && edge.to == "b" && edge.via.len() == 2)
            .unwrap();
        let (op, label) = unlink_edge_op(&project, "a", &edge).unwrap();
        assert_eq!(label, "Unlink a → b (force, in rule r2)");
        op.apply(&mut project).unwrap();
        let mut expected = r2;
        expected.effects.path_modifiers.remove(1);
        assert_eq!(project.rules.get("r2"), Some(&expected));
        assert_eq!(project.rules.get("r1"), Some(&r1));
        assert_eq!(project.acts.get("a"), Some(&a));
        assert!(unlink_edge_op(&project, "a", &edge).is_none(), "the edge is gone");

        // A direct edge is removed from the act, the rule's copy of it left.
        let direct =
            act_edges(&project, &a).into_iter().find(|edge| edge.kind == LinkKind::Force && edge.is_direct()).unwrap();
        let (op, label) = unlink_edge_op(&project, "a", &direct).unwrap();
        assert_eq!(label, "Unlink a → b (force)");
        op.apply(&mut project).unwrap();
        assert!(project.acts.get("a").unwrap().effects.path_modifiers.is_empty());
        assert_eq!(project.rules.get("r1"), Some(&r1));
        // A rule that is gone: no op, no panic.
        let stale = ActEdge { via: vec!["gone".to_owned()], ..direct };
        assert!(unlink_edge_op(&project, "a", &stale).is_none());
    }

    #[test]
    fn unlinking_a_gated_direct_edge_keeps_the_plain_one_to_the_same_act() {
        let mut project = Project::default();
        let mut a = act("a");
        a.next_acts = vec![ActLink { chance: Expr::int(40), ..ActLink::to("b") }, ActLink::to("b")];
        project.acts.insert(a);
        let gated = act_edges(&project, project.acts.get("a").unwrap())[0].clone();
        let (op, label) = unlink_edge_op(&project, "a", &gated).unwrap();
        assert_eq!(label, "Unlink a → b (next, 40%)");
        op.apply(&mut project).unwrap();
        assert_eq!(project.acts.get("a").unwrap().next_acts, vec![ActLink::to("b")]);
    }

    /// The bundled packs: the rule-borne links they hold, found and drawn.
    #[test]
    fn the_bundled_packs_rule_borne_links_are_found() {
        let content = crate::app::default_project_path().parent().unwrap().to_owned();
        let mut found = Vec::new();
        for pack in ["lighthouse", "act-demo"] {
            let loaded = actforge_runtime::project::load_folder(&content.join(pack)).unwrap();
            let project = loaded.project;
            for act in &project.acts {
                for edge in act_edges(&project, act).into_iter().filter(|edge| !edge.is_direct()) {
                    println!("{pack}: {} → {} ({}, {})", act.id, edge.to, edge.kind.label(), edge.label());
                    found.push((pack, act.id.as_str().to_owned(), edge.kind, edge.to, edge.via));
                }
            }
        }
        // Lighthouse: combing the beach runs `summon_help`, which spawns a bonfire token. The act
        // demo keeps every link in its acts.
        assert_eq!(
            found,
            vec![(
                "lighthouse",
                "comb_the_beach".to_owned(),
                LinkKind::SpawnToken,
                "bonfire_burns".to_owned(),
                vec!["summon_help".to_owned()]
            )]
        );
    }
}
