//! Issue 29 (battle preview): a skill's forecast — its effect area and, per unit, how often and
//! how much the skill's own formulas change it — played on copies that never foretell the real
//! draw and leave the session as it was.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::PathBuf;

use actforge_runtime::engine::{FORECAST_TRIALS, Session};
use actforge_runtime::map::Spot;
use actforge_runtime::project::load_folder;

fn skirmish_at_the_knight_s_bash() -> Session {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/srpg-skirmish");
    let project = load_folder(&root).unwrap().project;
    let mut session = Session::new(project, 3).unwrap();
    session
        .run_script(
            "expect turn raider
             move raider 5 3 1
             use raider shoot 5 0 1
             wait raider
             move archer 2 3 2
             use archer shoot 2 7 1
             wait archer
             expect turn knight
             move knight 4 3 2",
        )
        .unwrap();
    session
}

#[test]
fn a_forecast_names_the_area_the_units_hit_and_the_mean_change_without_touching_the_game() {
    let session = skirmish_at_the_knight_s_bash();
    let hash = session.state_hash();
    let at = Spot { cell_x: 5, cell_y: 3, level: 1 };
    let forecast = session.forecast_skill("knight", "bash", at, FORECAST_TRIALS).unwrap();
    assert_eq!(forecast.trials, FORECAST_TRIALS);
    assert!(forecast.area.contains(&at), "{:?}", forecast.area);
    let raider = forecast.units.iter().find(|unit| unit.unit == "raider").unwrap();
    // The bash always lands (the playtest's 22 → 17.5), and pushes the raider 2 cells east.
    assert_eq!(raider.changed, 1.0);
    let hp = raider.stats.iter().find(|(name, _)| name == "hp").unwrap().1;
    assert_eq!(hp, -4.5);
    assert!(forecast.units.iter().all(|unit| unit.unit != "knight" || unit.stats.iter().all(|(n, _)| n != "ct")));
    assert_eq!(session.state_hash(), hash, "a forecast leaves the session as it was");
    // The same state forecasts the same.
    assert_eq!(session.forecast_skill("knight", "bash", at, FORECAST_TRIALS).unwrap(), forecast);
    // A choice that is not possible now is refused with why.
    let error = session.forecast_skill("knight", "bash", Spot { cell_x: 0, cell_y: 0, level: 1 }, 8).unwrap_err();
    assert!(error.contains("cannot use bash at 0,0,1 now"), "{error}");
    assert!(session.forecast_skill("raider", "nothing", at, 8).is_err());
}

#[test]
fn a_shot_with_a_hit_chance_forecasts_the_share_of_hits_its_formula_gives() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/srpg-skirmish");
    let mut session = Session::new(load_folder(&root).unwrap().project, 3).unwrap();
    session.run_script("expect turn raider\nmove raider 5 3 1").unwrap();
    let forecast = session.forecast_skill("raider", "shoot", Spot { cell_x: 5, cell_y: 0, level: 1 }, 400).unwrap();
    let target = &forecast.units[0];
    assert!(0.2 < target.changed && target.changed < 0.95, "{forecast:?}");
    let hp = target.stats.iter().find(|(name, _)| name == "hp").unwrap().1;
    assert!(hp < 0.0, "{forecast:?}");
}
