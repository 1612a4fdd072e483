//! A unit's skills as it can use them (seed 001 "Skill"): grouped and sorted, and without
//! those another of its skills replaces.

use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;

use crate::engine::content::Content;
use crate::model::{Equipment, Id, Skill, SkillKind, Unit};

use super::TacticsState;

/// Whether `path` (a skill id, `GROUP//ID`, or a group ending in `//`) names `skill`.
pub fn names_skill(path: &str, skill: &Skill) -> bool {
    let path = path.trim();
    if path.is_empty() {
        return false;
    }
    if let Some(group) = path.strip_suffix("//") {
        // A group names its own skills and those of its subgroups.
        return skill.group == group || skill.group.starts_with(&format!("{group}//"));
    }
    match path.rsplit_once("//") {
        Some((group, id)) => skill.group == group && skill.id.as_str() == id,
        None => skill.id.as_str() == path,
    }
}

/// A unit's skills by its list (its own, then those its equipment grants: `skill_ids`): each
/// with its place in the list, whether another of its skills replaces it (and which), sorted by
/// group, then `sorting`, then the list's order.
pub(super) fn unit_skills<'c>(content: &'c Content, ids: &[&Id<Skill>]) -> Vec<(usize, &'c Skill, Option<&'c Skill>)> {
    let listed: Vec<(usize, &Skill)> =
        ids.iter().enumerate().filter_map(|(at, id)| content.skill(id.as_str()).map(|skill| (at, skill))).collect();
    // Replacements in priority order (highest first; ties by the list's order): one that is
    // itself replaced by then replaces nothing, and one whose skill a higher one replaced
    // already is replaced by it (SRPGCK settles conflicts by replacement priority).
    let mut replacing: Vec<&(usize, &Skill)> = listed.iter().filter(|(_, skill)| !skill.replaces.is_empty()).collect();
    replacing.sort_by_key(|(at, skill)| (std::cmp::Reverse(skill.replacement_priority), *at));
    let mut replaced_by: Vec<Option<&Skill>> = vec![None; listed.len()];
    for (at, by) in replacing {
        let Some(position) = listed.iter().position(|(other, _)| other == at) else { continue };
        if replaced_by.get(position).is_some_and(Option::is_some) {
            continue;
        }
        // A rival of higher priority replaced its skill already: it loses, and is replaced.
        let rival = listed
            .iter()
            .zip(replaced_by.iter())
            .find(|((_, skill), slot)| skill.id != by.id && slot.is_some() && names_skill(&by.replaces, skill))
            .and_then(|(_, slot)| *slot);
        if let Some(winner) = rival {
            if let Some(slot) = replaced_by.get_mut(position) {
                *slot = Some(winner);
            }
            continue;
        }
        for ((_, skill), slot) in listed.iter().zip(replaced_by.iter_mut()) {
            if skill.id != by.id && slot.is_none() && names_skill(&by.replaces, skill) {
                *slot = Some(*by);
            }
        }
    }
    let mut skills: Vec<(usize, &Skill, Option<&Skill>)> =
        listed.into_iter().zip(replaced_by).map(|((at, skill), by)| (at, skill, by)).collect();
    skills.sort_by(|(a_at, a, _), (b_at, b, _)| (&a.group, a.sorting, a_at).cmp(&(&b.group, b.sorting, b_at)));
    skills
}

/// A unit's usable skills as [`TacticsState::usable_skills`] lists them (every kind, each with
/// its place in the unit's list), for the unit type and equipment they were worked out for.
struct UsableList {
    unit: Id<Unit>,
    equipment: Vec<Id<Equipment>>,
    skills: Arc<[(usize, Id<Skill>)]>,
}

/// Each unit's usable skills, worked out once per battle for as long as it wields the same
/// equipment: a battle lists its active unit's move and action skills at every move, and
/// working them out (the ids, replacement, sorting) took a twentieth of a skirmish. They
/// depend only on the content, the unit's type and its equipment. Not part of the state (a
/// copied battle starts with none).
#[derive(Default)]
pub(super) struct UsableSkills(Mutex<FxHashMap<String, UsableList>>);

impl Clone for UsableSkills {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for UsableSkills {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UsableSkills")
    }
}

impl TacticsState {
    /// The skills of `key` of `kind` it can use (not replaced), grouped and sorted, each with
    /// its place in the unit's list.
    pub(super) fn usable_skills<'c>(
        &self,
        content: &'c Content,
        key: &str,
        kind: SkillKind,
    ) -> Vec<(usize, &'c Skill)> {
        let Some(unit) = self.units.get(key) else { return Vec::new() };
        // Kept lists are for the battle's own content (the one its formulas read).
        if !std::ptr::eq(std::ptr::from_ref(content), Arc::as_ptr(&self.setup.content)) {
            return self.usable_skills_now(content, key, kind);
        }
        let listed = {
            let mut kept = self.setup.usable.0.lock().unwrap_or_else(PoisonError::into_inner);
            match kept.get(key) {
                Some(list) if list.unit == unit.unit && list.equipment == unit.equipment => Arc::clone(&list.skills),
                _ => {
                    let skills: Arc<[(usize, Id<Skill>)]> = unit_skills(content, &self.skill_ids(content, key))
                        .into_iter()
                        .filter(|(_, _, by)| by.is_none())
                        .map(|(at, skill, _)| (at, skill.id.clone()))
                        .collect();
                    let list = UsableList {
                        unit: unit.unit.clone(),
                        equipment: unit.equipment.clone(),
                        skills: Arc::clone(&skills),
                    };
                    kept.insert(key.to_owned(), list);
                    skills
                }
            }
        };
        let found: Vec<(usize, &'c Skill)> = listed
            .iter()
            .filter_map(|(at, id)| content.skill(id.as_str()).map(|skill| (*at, skill)))
            .filter(|(_, skill)| skill.kind == kind)
            .collect();
        debug_assert_eq!(
            found.iter().map(|(at, skill)| (*at, &skill.id)).collect::<Vec<_>>(),
            self.usable_skills_now(content, key, kind).iter().map(|(at, skill)| (*at, &skill.id)).collect::<Vec<_>>(),
            "a kept skill list"
        );
        found
    }

    /// [`Self::usable_skills`] worked out now.
    fn usable_skills_now<'c>(&self, content: &'c Content, key: &str, kind: SkillKind) -> Vec<(usize, &'c Skill)> {
        unit_skills(content, &self.skill_ids(content, key))
            .into_iter()
            .filter(|(_, skill, by)| skill.kind == kind && by.is_none())
            .map(|(at, skill, _)| (at, skill))
            .collect()
    }
}
