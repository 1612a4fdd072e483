//! Upgrading content written with an older schema version.
//!
//! Policy (FORMAT.md): a renamed field is read under its old name through a serde alias and
//! written under the new one; a removed field stays readable (and is converted here) for two
//! schema versions before it is dropped. Each step below upgrades a loaded project by one
//! version; they run in order after loading.

use rayon::prelude::*;

use crate::diagnostic::Diagnostic;
use crate::model::{Project, SCHEMA_VERSION};

/// One upgrade step: from `from` to `from + 1`.
struct Step {
    from: u32,
    /// What the step changes, for the diagnostic that reports it.
    summary: &'static str,
    apply: fn(&mut Project),
}

/// Every upgrade step, oldest first. Schema 1 is the first version: none yet.
const STEPS: &[Step] = &[];

/// Upgrades `project`, loaded from schema `from`, to [`SCHEMA_VERSION`]; reports each step.
pub fn upgrade(project: &mut Project, from: u32) -> Vec<Diagnostic> {
    run_steps(project, from, STEPS)
}

/// Upgrades tile maps written before palette ids (FORMAT.md §9 "Old paint"), whatever their
/// schema version: one warning per map that changed, saying what happened.
pub fn palette_ids(project: &mut Project) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    // Read first: a map written is copied (the items are shared), and most maps need nothing.
    // The check reads every tile of every map, so maps are checked in parallel (in order).
    let maps: Vec<&crate::model::TileMap> = project.tile_maps.iter().collect();
    let old: Vec<String> =
        maps.par_iter().filter(|map| map.needs_palette_ids()).map(|map| map.id.as_str().to_owned()).collect();
    for id in &old {
        let Some(map) = project.tile_maps.get_mut(id) else { continue };
        let (named, faces) = map.migrate_palette_ids();
        if named > 0 || faces > 0 {
            notes.push(Diagnostic::new(
                crate::Severity::Warning,
                format!(
                    "tile map `{}`: {named} palette entr{} got ids from their labels and {faces} face{} painted by palette index now name the entry; saving (or `actforge fmt`) writes the new form",
                    map.id.as_str(),
                    if named == 1 { "y" } else { "ies" },
                    if faces == 1 { "" } else { "s" },
                ),
            ));
        }
    }
    notes
}

fn run_steps(project: &mut Project, from: u32, steps: &[Step]) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    for step in steps.iter().filter(|step| step.from >= from) {
        (step.apply)(project);
        notes.push(Diagnostic::new(
            crate::Severity::Info,
            format!(
                "upgraded from schema {} to {}: {}; saving writes the new version",
                step.from,
                step.from + 1,
                step.summary
            ),
        ));
    }
    project.manifest.schema_version = SCHEMA_VERSION;
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_run_in_order_from_the_loaded_version_and_set_the_current_version() {
        fn rename(project: &mut Project) {
            project.manifest.name.push_str(" (step 1)");
        }
        fn describe(project: &mut Project) {
            project.manifest.name.push_str(" (step 2)");
        }
        let steps =
            [Step { from: 1, summary: "first", apply: rename }, Step { from: 2, summary: "second", apply: describe }];
        let mut project = Project::new("p");
        project.manifest.schema_version = 2;
        let notes = run_steps(&mut project, 2, &steps);
        assert_eq!(project.manifest.name, "p (step 2)");
        assert_eq!(notes.len(), 1);
        assert_eq!(project.manifest.schema_version, SCHEMA_VERSION);
    }
}
