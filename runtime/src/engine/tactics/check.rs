//! `check`'s view of battle formulas: every lookup that cannot resolve where the formula is
//! read (a `t.` with no target, a stat no unit has, a skill parameter the skill lacks, a name a
//! battle does not read) is reported at its column, since it would read NaN in play.

use std::collections::BTreeSet;

use crate::formula::ast::{Ast, AstKind};
use crate::formula::names::{ARG_NAMES, PSEUDO_STATS};
use crate::formula::{Lookup, Scope, lookup_text, parse};
use crate::model::{Expr, FieldPath, Kind, Project, Region, Skill, Unit};

use super::compile::{Acc, accessor};

/// A lookup that reads NaN where its formula is read.
#[derive(Clone, Debug, PartialEq)]
pub struct FormulaProblem {
    /// The item's kind.
    pub kind: Kind,
    /// The item's id.
    pub id: String,
    /// The formula's field.
    pub path: FieldPath,
    /// The formula.
    pub text: String,
    /// Where the lookup starts in the formula (characters).
    pub column: usize,
    /// What is wrong, in words.
    pub message: String,
}

/// What a battle formula is read with.
struct Where<'a> {
    /// In words, for the message: "a unit's stat (read with `c` the unit only)".
    what: &'static str,
    /// The units that can be `c` (none: there is no `c`).
    actors: Option<Vec<&'a Unit>>,
    /// A target (`t.`) is there.
    target: bool,
    /// The skill (`skill.`) it is read in.
    skill: Option<&'a Skill>,
    /// A spot (`arg.*`) is there.
    point: bool,
}

/// The lookups a formula reads for their value (not inside `exists` or `lookup(…, default)`,
/// which have a fallback), with where each starts.
fn value_lookups(ast: &Ast, out: &mut Vec<(Lookup, usize)>) {
    let mut visit = |node: &Ast| value_lookups(node, out);
    match &ast.kind {
        AstKind::Lookup(lookup) => out.push((lookup.clone(), ast.span.start)),
        AstKind::Number(_) | AstKind::Bool(_) | AstKind::Exists(_) => {}
        AstKind::Neg(inner) | AstKind::Not(inner) => visit(inner),
        AstKind::LookupOr(_, default) => visit(default),
        AstKind::Binary(_, both) => both.iter().for_each(visit),
        AstKind::If(parts) => parts.iter().for_each(visit),
        AstKind::Call(_, args) => args.iter().for_each(visit),
        AstKind::Cond(cases, default) | AstKind::RandomBranch(cases, default) => {
            for (when, value) in cases {
                visit(when);
                visit(value);
            }
            if let Some(default) = default {
                visit(default);
            }
        }
        AstKind::Switch(key, cases, default) => {
            visit(key);
            for (when, value) in cases {
                visit(when);
                visit(value);
            }
            if let Some(default) = default {
                visit(default);
            }
        }
        AstKind::Facing { cases, .. } => cases.iter().for_each(|(_, value)| visit(value)),
    }
}

struct Checker<'a> {
    project: &'a Project,
    out: Vec<FormulaProblem>,
}

impl<'a> Checker<'a> {
    /// Whether a unit reads `name`: a stat of its own, a pseudo-stat, or the terrain under it
    /// (`tile.*`, whose properties the formula checks know).
    fn has_stat(unit: &Unit, name: &str) -> bool {
        unit.stats.contains_key(name) || PSEUDO_STATS.contains(&name) || name.starts_with("tile.")
    }

    /// Why `lookup` reads NaN with `at`, if it does.
    fn problem(&self, at: &Where<'_>, lookup: &Lookup) -> Option<String> {
        let text = lookup_text(lookup);
        match accessor(lookup) {
            Acc::Actor(name) => match &at.actors {
                None => Some(format!("`{text}` reads NaN: {} has no `c`", at.what)),
                // A stat no unit has is an unknown name: the formula checks report it.
                Some(units) if units.is_empty() => None,
                Some(units) => {
                    let lacking: Vec<&str> =
                        units.iter().filter(|unit| !Self::has_stat(unit, &name)).map(|unit| unit.id.as_str()).collect();
                    (!lacking.is_empty()).then(|| {
                        format!("`{text}` reads NaN for {}: no stat `{name}` ({})", lacking.join(", "), at.what)
                    })
                }
            },
            Acc::Target(_) if !at.target => Some(format!("`{text}` reads NaN: {} has no target (`t`)", at.what)),
            Acc::Skill(name) | Acc::Arg(name) if name.starts_with("arg.") => {
                // `arg.tile.*` is the aimed spot's terrain (its properties are checked as names).
                if !ARG_NAMES.contains(&name.as_str()) && !name.starts_with("arg.tile.") {
                    Some(format!("`{text}` reads NaN: there is no `{name}` (the `arg.*` names are in FORMAT.md §12)"))
                } else if !at.point {
                    Some(format!("`{text}` reads NaN: {} has no spot aimed at (`arg.*`)", at.what))
                } else {
                    None
                }
            }
            Acc::Skill(name) => match at.skill {
                None => Some(format!("`{text}` reads NaN: {} has no skill", at.what)),
                Some(_) if name == "hitType" => None,
                Some(skill) => (!skill.params.contains_key(&name))
                    .then(|| format!("`{text}` reads NaN: skill `{}` has no parameter `{name}`", skill.id)),
            },
            Acc::UnitStat(id, stat) => {
                let unit_id = id.split('#').next().unwrap_or_default();
                match self.project.units.get(unit_id) {
                    None => Some(format!("`{text}` reads NaN: there is no unit `{id}`")),
                    Some(unit) => (!Self::has_stat(unit, &stat))
                        .then(|| format!("`{text}` reads NaN: unit `{unit_id}` has no stat `{stat}`")),
                }
            }
            // A target's stats are checked by the formula checks (an unknown stat is an unknown
            // name), and so are statuses read for a value (compile errors); the rest always read.
            Acc::Target(_)
            | Acc::Arg(_)
            | Acc::ActorStatus(_)
            | Acc::TargetStatus(_)
            | Acc::TargetIsNull
            | Acc::TargetIsNotNull
            | Acc::TeamAlive(_)
            | Acc::Tick
            | Acc::Turns
            // Equipment searches are checked by the formula checks (categories, slots and
            // parameters no equipment has); effects and reactions read what the running action
            // recorded, which only play knows.
            | Acc::Equip(..)
            | Acc::Effect(_)
            | Acc::EffectValue
            | Acc::ReactedEffectValue
            | Acc::ReactedSkill(_)
            | Acc::Reaction(_) => None,
            Acc::Missing => Some(format!(
                "`{text}` reads NaN in a battle (it reads `c.`, `t.`, `skill.`, `arg.*`, `unit.ID.STAT`, \
                 `team.NAME.alive`, `battle.tick`, `battle.turns`, `equip(…)`, `effect`, `reaction.*`)"
            )),
        }
    }

    /// The problems of a formula's lookups read with `at`: the column each starts at and
    /// what is wrong. A named formula's body is read where it is used, so its problems are
    /// reported at the reference (`depth` guards against cycles, which are errors anyway).
    fn problems_in(&self, text: &str, at: &Where<'_>, depth: u8) -> Vec<(usize, String)> {
        // A formula that does not parse is reported by the formula checks.
        let Ok(ast) = parse(text) else { return Vec::new() };
        let mut found = Vec::new();
        value_lookups(&ast, &mut found);
        let mut problems = Vec::new();
        for (lookup, start) in found {
            let column = text.get(..start).map_or(0, |before| before.chars().count());
            if lookup.scope == Scope::Formula {
                let Some(named) = self.project.formulas.get(lookup.name.as_str()).filter(|_| depth < 8) else {
                    continue;
                };
                for (_, inner) in self.problems_in(named.expr.text(), at, depth.saturating_add(1)) {
                    problems.push((column, format!("`{}` reads {inner}", lookup_text(&lookup))));
                }
                continue;
            }
            if let Some(message) = self.problem(at, &lookup) {
                problems.push((column, message));
            }
        }
        problems
    }

    fn formula(&mut self, kind: Kind, id: &str, path: &FieldPath, expr: &Expr, at: &Where<'_>) {
        if expr.as_int().is_some() {
            return;
        }
        let mut seen = BTreeSet::new();
        for (column, message) in self.problems_in(expr.text(), at, 0) {
            if !seen.insert(message.clone()) {
                continue;
            }
            self.out.push(FormulaProblem {
                kind,
                id: id.to_owned(),
                path: path.clone(),
                text: expr.text().to_owned(),
                column,
                message,
            });
        }
    }

    fn region(&mut self, skill: &Skill, path: &FieldPath, region: &Region, numbers: &Where<'_>, test: &Where<'_>) {
        let fields: [(&str, &Expr); 17] = [
            ("radius_min", &region.radius_min),
            ("radius_max", &region.radius_max),
            ("z_up_min", &region.z_up_min),
            ("z_up_max", &region.z_up_max),
            ("z_down_min", &region.z_down_min),
            ("z_down_max", &region.z_down_max),
            ("xy_direction", &region.xy_direction),
            ("z_direction", &region.z_direction),
            ("xy_arc_min", &region.xy_arc_min),
            ("xy_arc_max", &region.xy_arc_max),
            ("z_arc_min", &region.z_arc_min),
            ("z_arc_max", &region.z_arc_max),
            ("forward_clip_max", &region.forward_clip_max),
            ("line_width_min", &region.line_width_min),
            ("line_width_max", &region.line_width_max),
            ("n_ways", &region.n_ways),
            ("predicate", region.predicate.as_ref().unwrap_or(&region.n_ways)),
        ];
        for (name, expr) in fields {
            if name == "predicate" {
                if region.predicate.is_some() {
                    self.formula(Kind::Skill, skill.id.as_str(), &path.clone().field(name), expr, test);
                }
                continue;
            }
            self.formula(Kind::Skill, skill.id.as_str(), &path.clone().field(name), expr, numbers);
        }
        for (at, sub) in region.subregions.iter().enumerate() {
            self.region(skill, &path.clone().field("subregions").index(at), sub, numbers, test);
        }
    }

    fn skill(&mut self, skill: &'a Skill) {
        let holders: Vec<&Unit> = self.project.units.iter().filter(|unit| unit.skills.contains(&skill.id)).collect();
        let id = skill.id.as_str();
        let root = FieldPath::root();
        let with =
            |what, target, point| Where { what, actors: Some(holders.clone()), target, skill: Some(skill), point };
        let aiming = with("a target region's numbers (read with `c`, the skill, no target, no spot)", false, false);
        let test = with("a region's predicate", true, true);
        let hit = with("a skill's effects", true, true);
        let aimed = with("an effect region's numbers (read with `c`, the skill and the spot)", false, true);
        let charged = with("a skill's delay (read with `c`, the skill and the spot, no target)", false, true);
        for (name, expr) in &skill.params {
            let mut path = root.clone().field("params");
            path.push(crate::model::PathSegment::Key(name.clone()));
            self.formula(Kind::Skill, id, &path, expr, &hit);
        }
        self.region(skill, &root.clone().field("target_region"), &skill.target_region, &aiming, &test);
        self.region(skill, &root.clone().field("effect_region"), &skill.effect_region, &aimed, &test);
        self.formula(Kind::Skill, id, &root.clone().field("hit_type"), &skill.hit_type, &hit);
        self.formula(Kind::Skill, id, &root.clone().field("delay"), &skill.delay, &charged);
        let holder = Where {
            what: "a status's amounts (read with `c` the unit that holds it)",
            actors: Some(Vec::new()),
            target: true,
            skill: Some(skill),
            point: true,
        };
        for (at, hit_type) in skill.hit_types.iter().enumerate() {
            let base = root.clone().field("hit_types").index(at);
            for (index, effect) in hit_type.stat_effects.iter().enumerate() {
                let path = base.clone().field("stat_effects").index(index).field("value");
                self.formula(Kind::Skill, id, &path, &effect.value, &hit);
            }
            for (index, status) in hit_type.status_effects.iter().enumerate() {
                let path = base.clone().field("status_effects").index(index);
                self.formula(Kind::Skill, id, &path.clone().field("duration_ticks"), &status.duration_ticks, &hit);
                self.formula(Kind::Skill, id, &path.clone().field("tick_interval"), &status.tick_interval, &hit);
                // Their `t.`, `skill.` and `arg.*` are reported by the status checks; here the
                // stats and names (any unit may hold the status).
                for (field, effects) in [("stat_effects", &status.stat_effects), ("tick_effects", &status.tick_effects)]
                {
                    for (number, effect) in effects.iter().enumerate() {
                        let path = path.clone().field(field).index(number).field("value");
                        self.formula(Kind::Skill, id, &path, &effect.value, &holder);
                    }
                }
            }
            for (index, line_move) in hit_type.line_moves.iter().enumerate() {
                let path = base.clone().field("line_moves").index(index).field("region");
                self.region(skill, &path, &line_move.region, &hit, &hit);
            }
        }
    }
}

/// Every lookup of a battle formula in `project` that reads NaN where it is read.
pub fn formula_problems(project: &Project) -> Vec<FormulaProblem> {
    let mut checker = Checker { project, out: Vec::new() };
    for unit in &project.units {
        let at = Where {
            what: "a unit's stats and limits (read with `c` the unit only)",
            actors: Some(vec![unit]),
            target: false,
            skill: None,
            point: false,
        };
        for (name, expr) in &unit.stats {
            let mut path = FieldPath::root().field("stats");
            path.push(crate::model::PathSegment::Key(name.clone()));
            checker.formula(Kind::Unit, unit.id.as_str(), &path, expr, &at);
        }
        for (name, limits) in &unit.limits {
            for (bound, expr) in [("min", &limits.min), ("max", &limits.max)] {
                let Some(expr) = expr else { continue };
                let mut path = FieldPath::root().field("limits");
                path.push(crate::model::PathSegment::Key(name.clone()));
                checker.formula(Kind::Unit, unit.id.as_str(), &path.field(bound), expr, &at);
            }
        }
    }
    for skill in &project.skills {
        checker.skill(skill);
    }
    for map in &project.tile_maps {
        let nobody = Where {
            what: "a win condition (read with no unit, target or skill)",
            actors: None,
            target: false,
            skill: None,
            point: false,
        };
        for (at, condition) in map.win_conditions.iter().enumerate() {
            let path = FieldPath::root().field("win_conditions").index(at).field("when");
            checker.formula(Kind::TileMap, map.id.as_str(), &path, &condition.when, &nobody);
        }
        let placed: Vec<&Unit> =
            map.placements.iter().filter_map(|placement| project.units.get(placement.unit.as_str())).collect();
        let each = Where {
            what: "the scheduler's points (read with `c` each unit placed)",
            actors: Some(placed),
            target: false,
            skill: None,
            point: false,
        };
        let scheduler = &map.scheduler;
        for (name, expr) in [
            ("unit_points", &scheduler.unit_points),
            ("points_diminish", &scheduler.points_diminish),
            ("move_points", &scheduler.move_points),
        ] {
            if let Some(expr) = expr {
                checker.formula(
                    Kind::TileMap,
                    map.id.as_str(),
                    &FieldPath::root().field("scheduler").field(name),
                    expr,
                    &each,
                );
            }
        }
    }
    checker.out
}
