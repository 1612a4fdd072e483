//! A unit's skills as it can use them (seed 001 "Skill"): grouped and sorted, and without
//! those another of its skills replaces.

use crate::engine::content::Content;
use crate::model::{Id, Skill, SkillKind};

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

impl TacticsState {
    /// The skills of `key` of `kind` it can use (not replaced), grouped and sorted, each with
    /// its place in the unit's list.
    pub(super) fn usable_skills<'c>(
        &self,
        content: &'c Content,
        key: &str,
        kind: SkillKind,
    ) -> Vec<(usize, &'c Skill)> {
        unit_skills(content, &self.skill_ids(content, key))
            .into_iter()
            .filter(|(_, skill, by)| skill.kind == kind && by.is_none())
            .map(|(at, skill, _)| (at, skill))
            .collect()
    }
}
