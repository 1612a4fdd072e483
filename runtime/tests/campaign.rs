//! The campaign system (FORMAT.md §14) with the `content/era-synthesis` pack: the pack loads
//! and validates, traversal and path costs, a locked path opening, the credit limit, a meter
//! threshold firing its rule, patrols retaking a node, the era cycle, the end and its grade,
//! refused content, random play that replays to the same hash, and the golden playtest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::collections::BTreeMap;
use std::path::PathBuf;

use actforge_runtime::engine::policy::{Move, RandomPolicy};
use actforge_runtime::engine::{Choice, Event, Outcome, Session};
use actforge_runtime::model::{Id, Patrol, Project};
use actforge_runtime::project::load_folder;
use actforge_runtime::synthesis::probability_table;
use actforge_runtime::{Severity, validate::validate};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn pack() -> Project {
    load_folder(&workspace().join("content/era-synthesis")).unwrap().project
}

fn session() -> Session {
    Session::new(pack(), 3).unwrap()
}

fn run(session: &mut Session, script: &str) -> Vec<Event> {
    let report = session
        .run_script(script)
        .unwrap_or_else(|error| panic!("{error}\n{}", session.describe_campaign().join("\n")));
    report.events.into_iter().map(|timed| timed.event).collect()
}

fn query(session: &Session, formula: &str) -> f64 {
    session.query(formula).unwrap_or_else(|error| panic!("{formula}: {error}"))
}

fn go(node: &str) -> Choice {
    Choice::MoveToNode { node: Id::new(node) }
}

#[test]
fn the_pack_is_canonical_and_validates_without_errors() {
    let root = workspace().join("content/era-synthesis");
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    for (relative, text) in actforge_runtime::project::render_files(&loaded.project).unwrap() {
        assert_eq!(std::fs::read_to_string(root.join(&relative)).unwrap(), text, "{}", relative.display());
    }
    // What `actforge check` runs.
    let found = validate(&loaded.project, &loaded.sources, Some(&root));
    assert!(found.iter().all(|d| d.severity != Severity::Error), "{found:?}");
    assert!(found.is_empty(), "warnings too: {found:?}");
    let project = &loaded.project;
    assert_eq!(project.eras.iter().count(), 7);
    let map = project.node_maps.get("shattered_frontier").unwrap();
    for kind in ["Normal", "Home", "Anecdote", "Forge", "Safehouse", "Custom"] {
        assert!(map.nodes.iter().any(|node| format!("{:?}", node.kind).starts_with(kind)), "no {kind} node");
    }
    for formula in ["m_faith", "m_entropy", "success_chance"] {
        assert!(project.formulas.get(formula).is_some(), "{formula}");
    }
}

#[test]
fn the_campaign_starts_at_home_at_dawn_of_the_first_era() {
    let session = session();
    let campaign = session.campaign().unwrap();
    assert_eq!(campaign.node.as_str(), "sanctum");
    assert_eq!((campaign.day, campaign.era.as_ref().map(Id::as_str)), (1, Some("totem")));
    assert_eq!(query(&session, "phase.dawn"), 1.0);
    assert_eq!(query(&session, "node.sanctum.here + node.sanctum.captured + campaign.captured"), 3.0);
    // Dawn income (+3 flow, +2 compute) and the totem's favour (+1 flow) ran at the start.
    assert_eq!((query(&session, "flow"), query(&session, "compute")), (14.0, 8.0));
    // Dawn has no moves: only the card cycle's extra draw and deck choice.
    assert_eq!(
        session.choices(),
        vec![Choice::DrawCard, Choice::UseDeck { deck: "relics".to_owned() }, Choice::EndPhase]
    );
}

#[test]
fn taking_a_path_pays_its_cost_captures_and_fires_the_anecdote() {
    let mut session = session();
    run(&mut session, "end-phase");
    let moves: Vec<Choice> = session
        .choices()
        .into_iter()
        .filter(|choice| {
            !matches!(choice, Choice::Synthesize { .. } | Choice::Bind { .. } | Choice::SynthesizeAlone { .. })
        })
        .collect();
    assert_eq!(moves, vec![go("whisper_market"), go("old_shrine"), Choice::EndPhase]);
    let events = session.apply(&go("old_shrine")).unwrap();
    assert!(events.iter().any(|e| matches!(e, Event::NodeCaptured { node } if node.as_str() == "old_shrine")));
    assert!(events.iter().any(|e| matches!(e, Event::CampaignRuleRan { rule } if rule.as_str() == "shrine_tale")));
    assert_eq!(query(&session, "compute"), 7.0);
    assert_eq!(query(&session, "faith"), 70.0);
    assert_eq!(query(&session, "node.old_shrine.here and node.old_shrine.visited and campaign.moves == 1"), 1.0);
    // The anecdote offers a choice, and nothing else can be done until it is taken.
    assert!(events.contains(&Event::NodeOptionsOffered {
        node: Id::new("old_shrine"),
        options: vec!["spread".to_owned(), "report".to_owned()]
    }));
    let choose = |option: &str| Choice::ChooseNodeOption { node: Id::new("old_shrine"), option: option.to_owned() };
    assert_eq!(session.choices(), vec![choose("spread"), choose("report")]);
    let refused = session.run_script("end-phase").unwrap_err();
    assert!(refused.message.contains("waits for a choice of its options (`old_shrine`)"), "{refused}");
    // Reporting it to the ruler: compute +3, deterrence +10 (it was at its min, 0).
    run(
        &mut session,
        "choose report
expect meter compute == 10
expect meter deterrence == 10",
    );
    let refused = session.run_script("choose spread").unwrap_err();
    assert!(refused.message.contains("no node waits for a choice"), "{refused}");
    // The map is a DAG: there is no way back.
    assert!(!session.choices().contains(&go("sanctum")));
    let refused = session.run_script("go sanctum").unwrap_err();
    assert!(refused.message.contains("no path leads there"), "{refused}");
    assert!(
        refused.message.contains("possible now: go ember_forge, go ash_refuge, synthesize ember_root"),
        "{refused}"
    );
}

#[test]
fn a_forge_works_once_and_a_designer_kind_runs_its_kind_rules() {
    let mut session = session();
    run(
        &mut session,
        "end-phase\ngo whisper_market\ngo ember_forge\nexpect meter flow_cap == 25\nexpect node.ember_forge.spent",
    );
    run(&mut session, "end-phase\nend-phase\nend-phase\ngo signal_tower\nexpect meter balance == 60");
}

#[test]
fn a_locked_path_opens_when_its_condition_holds() {
    let mut session = session();
    run(&mut session, "end-phase\ngo whisper_market");
    assert!(!session.choices().contains(&go("iron_gate")));
    let refused = session.run_script("go iron_gate").unwrap_err();
    assert!(refused.message.contains("locked"), "{refused}");
    // Day 3 lifts the fog: `campaign.day >= 3`.
    run(
        &mut session,
        "end-phase\nend-phase\nend-phase\nend-phase\nend-phase\nend-phase\nexpect day 3\nexpect phase noon",
    );
    assert!(session.choices().contains(&go("iron_gate")));
    run(&mut session, "go iron_gate\nexpect node iron_gate");
}

#[test]
fn the_credit_limit_refuses_a_path_that_would_pass_it() {
    let mut session = session();
    // compute 8 → 7 → 4 → 2 → 0; the cap is 10, so credit reaches −3.
    run(
        &mut session,
        "end-phase\ngo old_shrine\nchoose spread\ngo ash_refuge\ngo signal_tower\ngo iron_gate\nexpect meter compute == 0",
    );
    // The citadel costs 4: 0 − 4 = −4 < −3.
    assert!(!session.choices().contains(&go("enemy_citadel")));
    let refused = session.run_script("go enemy_citadel").unwrap_err();
    assert!(refused.message.contains("credit limit"), "{refused}");
    let hash = session.state_hash();
    assert!(session.apply(&go("enemy_citadel")).is_err());
    assert_eq!(session.state_hash(), hash, "a refused choice changes nothing");
    // Next dawn brings 2 compute: 2 − 4 = −2 is within credit.
    run(&mut session, "end-phase\nend-phase\nend-phase\ngo enemy_citadel\nexpect meter compute == -2");
}

#[test]
fn a_meter_crossing_a_threshold_fires_its_rule() {
    let mut session = session();
    let mut all = Vec::new();
    for _ in 0..60 {
        all.extend(session.apply(&Choice::EndPhase).unwrap());
        if query(&session, "deterrence") >= 25.0 {
            break;
        }
    }
    let at = all
        .iter()
        .position(|e| matches!(e, Event::ThresholdCrossed { stat, .. } if stat.as_str() == "deterrence"))
        .expect("deterrence crossed 25");
    assert!(matches!(&all[at + 1], Event::CampaignRuleRan { rule } if rule.as_str() == "deterrence_step"));
    assert!(matches!(&all[at + 2], Event::Warning(text) if text.contains("another 10 %")));
    // At home the warden cannot see the player: stealthy, no penalty.
    assert_eq!(query(&session, "campaign.stealthy"), 1.0);
    assert_eq!(query(&session, "f.card_penalty"), 0.0);
}

#[test]
fn deterrence_resets_at_full_and_an_angel_attacks() {
    let mut project = pack();
    // Start near the top so one dusk takes deterrence over 100.
    let mut stat = project.stats.get("deterrence").unwrap().clone();
    stat.value = actforge_runtime::model::StatValue::Stored(actforge_runtime::model::Expr::int(99));
    project.stats.insert(stat);
    let mut session = Session::new(project, 3).unwrap();
    let events = run(&mut session, "end-phase\nend-phase");
    assert!(events.iter().any(|e| matches!(e, Event::CampaignRuleRan { rule } if rule.as_str() == "angel_attack")));
    assert_eq!(
        (query(&session, "deterrence"), query(&session, "faith"), query(&session, "balance")),
        (0.0, 50.0, 40.0)
    );
}

#[test]
fn the_warden_retakes_a_weak_captured_node() {
    let mut session = session();
    run(&mut session, "end-phase\ngo whisper_market\ngo ember_forge\nend-phase\nend-phase");
    // The warden walks iron_gate → signal_tower → ember_forge: day 2's end reaches the forge.
    assert_eq!(query(&session, "node.signal_tower.patrolled"), 1.0);
    let events = run(&mut session, "end-phase\nend-phase\nend-phase");
    assert!(events.iter().any(
        |e| matches!(e, Event::NodeRetaken { node, patrol } if node.as_str() == "ember_forge" && patrol == "warden")
    ));
    assert_eq!(query(&session, "node.ember_forge.captured + campaign.retaken * 10"), 10.0);
    // Seen by the warden on the player's own node: not stealthy; retaking cost deterrence and balance.
    assert_eq!(query(&session, "campaign.stealthy"), 0.0);
    assert_eq!(query(&session, "balance"), 45.0);
}

#[test]
fn eras_rotate_in_their_cycle() {
    let mut session = session();
    let mut started = Vec::new();
    for _ in 0..(7 * 3 * 2) {
        for event in session.apply(&Choice::EndPhase).unwrap() {
            if let Event::EraStarted { era } = event {
                started.push(era.as_str().to_owned());
            }
        }
    }
    assert_eq!(started, ["ignorance", "enlightenment"]);
    assert_eq!(query(&session, "era.enlightenment * 100 + era.turn * 10 + campaign.phase"), 111.0);
    assert_eq!(query(&session, "campaign.day"), 15.0);
}

#[test]
fn the_golden_playtest_passes_and_ends_with_a_grade() {
    let script = std::fs::read_to_string(workspace().join("content/era-synthesis/tests/era_synthesis.play")).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..2 {
        let mut session = session();
        let report = session
            .run_script(&script)
            .unwrap_or_else(|error| panic!("{error}\n{}", session.describe_campaign().join("\n")));
        assert!(report.expectations >= 20, "{report:?}");
        assert_eq!(session.state().outcome, Some(Outcome::Ended("victory: Triumph (凯旋): Victory".to_owned())));
        assert!(session.choices().is_empty());
        hashes.push(session.state_hash());
    }
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn random_play_replays_to_the_same_state() {
    let play = |seed: u64| {
        let mut session = Session::new(pack(), seed).unwrap();
        let mut policy = RandomPolicy::new(seed);
        let mut moves = 0;
        for _ in 0..2000 {
            match policy.step(&mut session) {
                Move::Stuck => break,
                Move::Chose(..) | Move::Waited(..) => moves += 1,
            }
        }
        (session.state_hash(), moves, session)
    };
    let mut ended = 0;
    for seed in 0..20 {
        let (hash, moves, session) = play(seed);
        let (again, again_moves, _) = play(seed);
        assert_eq!((hash, moves), (again, again_moves), "seed {seed}");
        if session.campaign().unwrap().result.is_some() {
            ended += 1;
            assert!(session.state().outcome.is_some());
        }
    }
    assert!(ended > 0, "some random campaigns end");
}

#[test]
fn invalid_maps_are_refused_with_clear_messages() {
    let mut project = pack();
    let mut map = project.node_maps.get("shattered_frontier").unwrap().clone();
    map.patrols.push(Patrol {
        id: "ghost".into(),
        route: vec![Id::new("sanctum"), Id::new("nowhere"), Id::new("iron_gate")],
        ..Patrol::default()
    });
    map.win = Some(actforge_runtime::model::Expr::new("balance >="));
    map.edges.push(actforge_runtime::model::MapEdge {
        from: Id::new("enemy_citadel"),
        to: Id::new("sanctum"),
        style: actforge_runtime::model::EdgeStyle::Solid,
        unlock: Some(actforge_runtime::model::Expr::new("node.atlantis.captured")),
        cost: actforge_runtime::model::Expr::int(0),
    });
    project.stats.insert(actforge_runtime::model::Stat {
        id: Id::new("doom"),
        value: actforge_runtime::model::StatValue::Computed(actforge_runtime::model::Expr::new("entropy * 2")),
        ..actforge_runtime::model::Stat::default()
    });
    map.cost_stat = Some(Id::new("doom"));
    project.node_maps.insert(map);
    let error = Session::new(project, 1).unwrap_err().to_string();
    for expected in [
        "there is no node `nowhere`",
        "a patrol walks along paths",
        "cycle",
        "atlantis",
        "costs are paid from a stored stat",
    ] {
        assert!(error.contains(expected), "{expected}: {error}");
    }
}

#[test]
fn the_lighthouse_plays_its_coast_route_with_the_turns_stats() {
    let project = load_folder(&workspace().join("content/lighthouse")).unwrap().project;
    let mut session = Session::new(project, 7).unwrap();
    // The dashed path reads the turns system's `storm` (one set of stats).
    assert!(session.choices().contains(&go("tide_caves")));
    session.apply(&go("tide_caves")).unwrap();
    assert_eq!(query(&session, "node.tide_caves.here"), 1.0);
    assert_eq!(query(&session, "table.card.lamp_oil"), 1.0, "table counts are still the table's");
}

#[test]
fn the_synthesis_table_reads_the_named_formulas_and_meters() {
    let project = pack();
    // Only the names the synthesis's formulas reach need values (not `card_penalty`'s
    // `campaign.stealthy`); the temperature is read without `synth.result.*`.
    let values = |faith: f64, entropy: f64| {
        [("faith", faith), ("entropy", entropy)]
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect::<BTreeMap<_, _>>()
    };
    // Iron id (alien, −20) + tide medium: tags gear 2, stone 1, tide 2.
    let table = probability_table(&project, "smelt", "iron_id", "tide_medium", &values(60.0, 0.0)).unwrap();
    let cards: Vec<(&str, f64)> = table.candidates.iter().map(|c| (c.card.as_str(), c.score)).collect();
    assert_eq!(cards, [("bastion", 4.0), ("eruption", 1.0), ("clockwork_idol", 4.0)]);
    let success = |table: &actforge_runtime::synthesis::ProbabilityTable, card: &str| {
        table.candidates.iter().find(|c| c.card.as_str() == card).unwrap().success
    };
    // D = 0; M_faith(60) = −4 + 0.175·20 = −0.5; M_entropy(0) = 0.
    assert!((success(&table, "bastion") - 79.5).abs() < 1e-9);
    // D = |6 − 5| + |2 − 5| = 4.
    assert!((success(&table, "clockwork_idol") - 75.5).abs() < 1e-9);
    // At faith 80 the upper piece holds (4, not 3); entropy 40 costs (40 / 10)^1.5 = 8.
    let table = probability_table(&project, "smelt", "iron_id", "tide_medium", &values(80.0, 40.0)).unwrap();
    assert!((success(&table, "bastion") - 76.0).abs() < 1e-9, "{}", success(&table, "bastion"));
    let shares: f64 = table.candidates.iter().map(|c| c.share).sum();
    assert!((shares - 1.0).abs() < 1e-9);
    // The same named formulas read the live meters in a session.
    assert_eq!(query(&session(), "f.m_faith"), -0.5);
}

/// A random campaign: nodes of every kind, forward paths (some locked, some with odd costs),
/// phases, a patrol whose route may leave the paths, meters with thresholds and a credit limit.
fn random_campaign(seed: &[u8]) -> Project {
    use actforge_runtime::model::{
        Crossing, EdgeStyle, Effects, Expr, Grade, MapEdge, MapNode, NodeKind, NodeMap, Phase, Rule, Stat,
        StatModifier, StatOp, StatValue, Threshold,
    };
    let mut bytes = seed.iter().copied().cycle();
    let mut next = move |n: u8| bytes.next().unwrap_or(0) % n.max(1);
    let formulas = ["compute > 2", "campaign.day >= 2", "1/0", "0/0", "node.n0.captured", "-3", "2"];
    let formula = |next: &mut dyn FnMut(u8) -> u8| Expr::new(formulas[usize::from(next(7))]);
    let mut project = Project::default();
    project.stats.insert(Stat {
        id: Id::new("compute"),
        value: StatValue::Stored(Expr::int(5)),
        min: Some(Expr::new("-0.3 * 10")),
        max: Some(Expr::int(10)),
        thresholds: vec![Threshold { at: Expr::int(2), crossing: Crossing::Either, rule: Id::new("ping") }],
        ..Stat::default()
    });
    project.rules.insert(Rule {
        id: Id::new("ping"),
        effects: Effects {
            stat_modifiers: vec![StatModifier { stat: Id::new("compute"), op: StatOp::Add, value: Expr::new("1") }],
            ..Effects::default()
        },
        ..Rule::default()
    });
    let count = 2 + next(7);
    let kinds = [
        NodeKind::Normal,
        NodeKind::Home,
        NodeKind::Anecdote,
        NodeKind::Forge,
        NodeKind::Safehouse,
        NodeKind::Custom("odd".into()),
    ];
    let nodes: Vec<MapNode> = (0..count)
        .map(|at| MapNode {
            id: Id::new(format!("n{at}")),
            kind: kinds[usize::from(next(6))].clone(),
            properties: [("strength".to_owned(), Expr::int(i64::from(next(4))))].into(),
            rules: if next(2) == 0 { vec![Id::new("ping")] } else { Vec::new() },
            ..MapNode::default()
        })
        .collect();
    let mut edges = Vec::new();
    for from in 0..count {
        for to in from + 1..count {
            if next(3) != 0 {
                let locked = next(3) == 0;
                edges.push(MapEdge {
                    from: Id::new(format!("n{from}")),
                    to: Id::new(format!("n{to}")),
                    style: if locked { EdgeStyle::Dashed } else { EdgeStyle::Solid },
                    unlock: locked.then(|| formula(&mut next)),
                    cost: Expr::int(i64::from(next(6))),
                });
            }
        }
    }
    let route = (0..=next(3)).map(|_| Id::new(format!("n{}", next(count)))).collect();
    project.node_maps.insert(NodeMap {
        id: Id::new("map"),
        start: Some(Id::new("n0")),
        nodes,
        edges,
        cost_stat: Some(Id::new("compute")),
        phases: (0..next(4))
            .map(|at| Phase { name: format!("p{at}"), no_moves: next(3) == 0, ..Phase::default() })
            .collect(),
        patrols: if next(2) == 0 {
            vec![Patrol { id: "w".into(), route, strength: Expr::int(2), ..Patrol::default() }]
        } else {
            Vec::new()
        },
        win: (next(2) == 0).then(|| formula(&mut next)),
        lose: (next(3) == 0).then(|| Expr::new("campaign.day > 4")),
        grades: vec![Grade { id: "g".into(), when: Expr::new("campaign.won"), ..Grade::default() }],
        ..NodeMap::default()
    });
    project.manifest.entry.node_map = Some(Id::new("map"));
    project
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn random_campaigns_never_panic_and_replay(seed in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..64)) {
        let project = random_campaign(&seed);
        if let Ok(mut session) = Session::new(project.clone(), 5) {
            let mut policy = RandomPolicy::new(5);
            policy.play(&mut session, 200);
            let mut again = Session::new(project, 5).unwrap();
            RandomPolicy::new(5).play(&mut again, 200);
            proptest::prop_assert_eq!(session.state_hash(), again.state_hash());
            // Arbitrary lines are refused with a reason, never a panic.
            for line in ["go n1", "go nowhere", "end-phase", "expect meter compute >= -3", "expect grade g", "go"] {
                let _ = session.run_script(line);
            }
            proptest::prop_assert!(session.query("compute").unwrap() >= -3.0);
        }
    }
}

#[test]
fn the_random_campaigns_of_the_property_test_mostly_play() {
    let playable = (0..64u8).filter(|n| Session::new(random_campaign(&[*n, n.wrapping_mul(7), 3]), 5).is_ok()).count();
    assert!(playable > 16, "{playable} of 64");
}

#[test]
fn simulations_give_a_deterministic_grade_distribution() {
    let content = std::sync::Arc::new(actforge_runtime::engine::Content::compile(pack()).unwrap());
    let counts = actforge_runtime::engine::campaign::grade_distribution(&content, 0..40, 2000);
    assert_eq!(counts.values().sum::<u32>(), 40);
    // Random players both win (mostly by siege: Victory) and, more often since cards cost flow
    // and battles hurt the core, lose (faith worn out: Defeat−).
    assert!(counts.get("triumph").is_some_and(|n| *n > 0), "{counts:?}");
    assert!(counts.get("caged").is_some_and(|n| *n > 0), "{counts:?}");
    assert_eq!(counts, actforge_runtime::engine::campaign::grade_distribution(&content, 0..40, 2000));
}

#[test]
fn a_synthesis_on_the_map_spends_compute_and_two_cards() {
    let mut session = session();
    let refused = session.run_script("smelt iron_id tide_medium").unwrap_err();
    assert!(refused.message.contains("cannot move during this phase"), "{refused}");
    run(&mut session, "end-phase");
    // A first, then B; each input must be in the hand.
    assert!(session.run_script("smelt flame_gospel iron_id").unwrap_err().message.contains("inputs (A first"));
    assert!(session.run_script("smelt iron_id iron_id").unwrap_err().message.contains("does not hold"));
    let choices = session.choices();
    assert_eq!(choices.iter().filter(|choice| matches!(choice, Choice::Synthesize { .. })).count(), 9);
    let events = session.apply(&Choice::Synthesize { a: Id::new("iron_id"), b: Id::new("tide_medium") }).unwrap();
    let Some(Event::Synthesized { result, success, chance, .. }) =
        events.iter().find(|event| matches!(event, Event::Synthesized { .. }))
    else {
        panic!("{events:?}")
    };
    // The table of FORMAT.md's example: bastion, eruption or the clockwork idol; 79.5, 71.5 or 75.5 %.
    let expected = match result.as_str() {
        "bastion" => "79.5",
        "eruption" => "71.5",
        "clockwork_idol" => "75.5",
        other => panic!("{other}"),
    };
    assert_eq!(chance, expected);
    assert_eq!(query(&session, "compute"), 5.0);
    assert_eq!(query(&session, "campaign.syntheses"), 1.0);
    let hand = session.campaign().unwrap().hand.clone();
    assert_eq!(hand.contains(result), *success, "{hand:?}");
    assert_eq!(hand.len(), if *success { 5 } else { 4 });
    let rule = if *success { "smelt_success" } else { "smelt_failure" };
    assert!(events.iter().any(|e| matches!(e, Event::CampaignRuleRan { rule: r } if r.as_str() == rule)));
    // Same seed, same draw.
    let mut again = self::session();
    run(&mut again, "end-phase\nsmelt iron_id tide_medium");
    assert_eq!(again.state_hash(), session.state_hash());
    // The line is `synthesize A B`; `smelt`, its earlier name, reads the same.
    let mut named = self::session();
    run(&mut named, "end-phase\nsynthesize iron_id tide_medium");
    assert_eq!(named.state_hash(), session.state_hash());
    let choice = Choice::Synthesize { a: Id::new("iron_id"), b: Id::new("tide_medium") };
    assert_eq!(named.describe_choice(&choice), "synthesize iron_id tide_medium");
}

#[test]
fn the_campaign_fields_round_trip_through_both_bundle_formats() {
    use actforge_runtime::project::{BundleFormat, bundle_text, parse_bundle};
    let project = pack();
    for format in [BundleFormat::Ron, BundleFormat::Json] {
        let text = bundle_text(&project, format).unwrap();
        let loaded = parse_bundle(&text, std::path::Path::new("bundle")).unwrap();
        assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        assert_eq!(loaded.project.node_maps.get("shattered_frontier"), project.node_maps.get("shattered_frontier"));
    }
}

#[test]
fn queries_read_every_campaign_name() {
    let mut session = session();
    run(&mut session, "end-phase\ngo whisper_market\ngo ember_forge");
    for (formula, value) in [
        ("campaign.day + campaign.phase * 10", 21.0),
        ("phase.noon + phase.dawn", 1.0),
        ("era.totem + era.punk + era.turn", 2.0),
        ("node.ember_forge.here + node.whisper_market.visited + node.sanctum.captured", 3.0),
        ("node.ember_forge.spent + node.iron_gate.patrolled + node.signal_tower.patrolled", 2.0),
        ("node.current.strength + node.signal_tower.strength", 4.0),
        ("campaign.captured + campaign.moves + campaign.retaken", 5.0),
        ("campaign.stealthy", 1.0),
        ("campaign.won + campaign.lost + campaign.ended", 0.0),
        // Six cards, and the forge's mark.
        ("campaign.hand + campaign.syntheses + campaign.failures", 7.0),
        ("turn", 1.0),
        ("stat.compute + compute", 8.0),
    ] {
        assert_eq!(query(&session, formula), value, "{formula}");
    }
    let error = session.query("node.atlantis.here").unwrap_err();
    assert!(error.contains("there is no node `atlantis`"), "{error}");
    assert!(session.query("phase.siesta").unwrap_err().contains("there is no phase `siesta`"));
}

#[test]
fn a_failed_most_probable_synthesis_gives_insight_and_a_second_revelation_roll() {
    let mut project = pack();
    let smelt = project.syntheses.get_mut("smelt").unwrap();
    smelt.success_chance = actforge_runtime::model::Expr::int(0);
    // A very cold softmax: the best-scoring candidate is chosen, and it always fails.
    smelt.temperature = actforge_runtime::model::Expr::from("0.01");
    let mut seen_second_roll = false;
    for seed in 0..40 {
        let mut session = Session::new(project.clone(), seed).unwrap();
        run(&mut session, "end-phase");
        let events = session.apply(&Choice::Synthesize { a: Id::new("iron_id"), b: Id::new("tide_medium") }).unwrap();
        assert!(events.iter().any(|e| matches!(e, Event::Synthesized { success: false, .. })), "{events:?}");
        assert!(events.iter().any(|e| matches!(e, Event::InsightGained { stat } if stat.as_str() == "insight")));
        assert_eq!(query(&session, "insight"), 1.0);
        let rolls: Vec<(i64, bool)> = events
            .iter()
            .filter_map(|e| match e {
                Event::DiceChecked { dice, success } => Some((dice.iter().sum(), *success)),
                _ => None,
            })
            .collect();
        // 2d6 above 7 on the first roll; after a failed synthesis a failed first roll earns a
        // second, which needs 7 or more.
        match rolls.as_slice() {
            [(first, true)] => assert!(*first > 7),
            [(first, false), (second, revealed)] => {
                assert!(*first <= 7);
                assert_eq!(*revealed, *second >= 7);
                seen_second_roll = true;
            }
            other => panic!("{other:?}"),
        }
        let revealed = rolls.last().is_some_and(|(_, success)| *success);
        assert_eq!(query(&session, "revelations"), f64::from(u8::from(revealed)));
    }
    assert!(seen_second_roll);
}

#[test]
fn set_meter_stores_a_value_within_the_meters_limits_or_says_why_not() {
    let mut session = session();
    run(
        &mut session,
        "set meter balance 85\nexpect meter balance == 85\nset meter compute -3\nset meter enemy_core 1e300",
    );
    assert_eq!(query(&session, "balance"), 85.0);
    assert_eq!(query(&session, "compute"), -3.0);
    let hash = session.state_hash();
    for (line, why) in [
        ("set meter favour 1", "there is no meter `favour` (there are: "),
        ("set meter balance high", "`high` is not a number"),
        ("set meter balance NaN", "`NaN` is not a number (NaN)"),
        ("set meter balance inf", "`inf` is not a finite number"),
        ("set meter balance 1e400", "`1e400` is not a finite number"),
        ("set meter balance 100.5", "100.5 is above the max of meter balance, 100"),
        ("set meter compute -4", "-4 is below the min of meter compute, -3"),
        ("set meter balance", "usage: set meter METER VALUE"),
        ("set stat balance 1", "the project has no turn config"),
        ("set unit knight hp 1", "this project sets up no battle"),
        ("place unit knight 1 1", "this project sets up no battle"),
        ("set cell player_one 1 1 6", "this project has no board play"),
    ] {
        let error = session.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {}", error.message);
    }
    assert_eq!(session.state_hash(), hash, "a refused set-up line changes nothing");
    // No threshold fires on a set-up line: deterrence crosses 25 without its rule running.
    let report = session.run_script("set meter deterrence 30").unwrap();
    assert!(report.events.is_empty(), "{:?}", report.events);
}

#[test]
fn the_era_synthesis_set_up_playtest_passes() {
    let script =
        std::fs::read_to_string(workspace().join("content/era-synthesis/tests/setup_and_checks.play")).unwrap();
    let mut session = session();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 8, "{}", report.expectations);
}

#[test]
fn why_not_a_locked_path_names_its_unlock_condition_with_the_values() {
    use actforge_runtime::engine::Subject;
    let mut session = session();
    let dawn = session.explain(&Subject::Node("old_shrine".to_owned())).unwrap();
    assert_eq!(dawn[0].text, "the player cannot move during this phase");
    run(&mut session, "end-phase\njump whisper_market");
    let reasons = session.explain(&Subject::Node("iron_gate".to_owned())).unwrap();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert_eq!(reasons[0].item, "path to `iron_gate`");
    let day = query(&session, "campaign.day");
    assert_eq!(reasons[0].text, format!("is locked: needs `campaign.day >= 3`: campaign.day is {day}"));
    assert_eq!(session.parse_subject("node:iron_gate").unwrap(), Subject::Node("iron_gate".to_owned()));
    // No path leads to the citadel from here; the forge is open.
    let far = session.explain(&Subject::Node("enemy_citadel".to_owned())).unwrap();
    assert!(far[0].text.contains("no path leads there"), "{far:?}");
    assert!(session.explain(&Subject::Node("ember_forge".to_owned())).unwrap().is_empty());
    assert!(session.explain(&Subject::Node("atlantis".to_owned())).is_err());
}

#[test]
fn the_smelt_reads_faith_and_entropy_through_its_named_formulas() {
    let project = pack();
    let reads = actforge_runtime::synthesis::synthesis_reads(&project, "smelt");
    let stats: Vec<&str> = reads.stats.iter().map(Id::as_str).collect();
    // `lovers`: the Harmony card's +20 % waits in the success chance.
    assert_eq!(stats, ["entropy", "faith", "lovers"]);
    assert_eq!(reads.formulas, ["m_affinity", "m_entropy", "m_faith", "success_chance"]);
    // M_faith alone reads faith.
    let m_faith = actforge_runtime::synthesis::reads(&project, ["f.m_faith".to_owned()]);
    assert_eq!(m_faith.stats.iter().map(Id::as_str).collect::<Vec<_>>(), ["faith"]);
    assert_eq!(
        actforge_runtime::synthesis::synthesis_reads(&project, "nothing"),
        actforge_runtime::synthesis::Reads::default()
    );
}

#[test]
fn terrain_affixes_are_read_by_formulas_and_hallowed_ground_keeps_doubt_away() {
    let mut session = session();
    assert_eq!(query(&session, "node.whisper_market.affix.hidden_from_patrols + node.old_shrine.affix.hallowed"), 2.0);
    assert_eq!(query(&session, "node.current.affix.hallowed"), 0.0);
    // At the shrine at dusk, seen by nobody or not, doubt does not come: faith stays 70.
    run(&mut session, "end-phase\ngo old_shrine\nchoose spread\nexpect node.current.affix.hallowed");
    run(&mut session, "expect meter faith == 75\nend-phase\nexpect meter faith == 75");
    // An affix no node carries is a check error, as a typo.
    let error = session.query("node.current.affix.halowed").unwrap_err();
    assert!(error.contains("node affix"), "{error}");
}

#[test]
fn a_synthesis_may_be_paid_from_its_own_meter() {
    let mut project = pack();
    project.node_maps.get_mut("shattered_frontier").unwrap().synthesis_cost_stat = Some(Id::new("flow"));
    let mut session = Session::new(project.clone(), 3).unwrap();
    // At noon of day 1: the smelt costs 3 − 1 (the gospel's decoration) flow (14 → 12); compute
    // stays at 8.
    run(
        &mut session,
        "end-phase\nsynthesize ember_root flame_gospel\nexpect meter flow == 12\nexpect meter compute == 8",
    );
    // A computed meter cannot pay.
    project.node_maps.get_mut("shattered_frontier").unwrap().synthesis_cost_stat = Some(Id::new("compute_cap"));
    project.stats.get_mut("compute_cap").unwrap().value =
        actforge_runtime::model::StatValue::Computed(actforge_runtime::model::Expr::new("10"));
    let problems = validate(&project, &actforge_runtime::project::Sources::memory(), None);
    assert!(
        problems
            .iter()
            .any(|p| p.message.contains("the stat `compute_cap` is computed; costs are paid from a stored stat")),
        "{problems:?}"
    );
}

#[test]
fn insight_summons_any_candidate_for_an_a_and_a_b() {
    let mut session = session();
    // No insight at the start: nothing to summon.
    run(&mut session, "end-phase");
    assert!(!session.choices().iter().any(|c| matches!(c, Choice::Summon { .. })));
    let error = session.run_script("summon eruption with ember_root flame_gospel").unwrap_err();
    assert!(error.message.contains("not enough insight"), "{error}");
    // With 2 insight: the eruption comes outright, the inputs leave, a C card is born (+5).
    run(&mut session, "set meter insight 2\nexpect choices include summon eruption with ember_root flame_gospel");
    let events = run(&mut session, "summon eruption with ember_root flame_gospel\nexpect meter insight == 0");
    assert!(events.iter().any(|e| matches!(e, Event::Summoned { result, .. } if result.as_str() == "eruption")));
    run(&mut session, "expect hand tide_base iron_id tide_medium gear_catalyst eruption\nexpect meter balance == 55");
    // A card of no candidate deck cannot be summoned.
    let error = session.run_script("set meter insight 5\nsummon tide_base with tide_base tide_medium").unwrap_err();
    assert!(error.message.contains("not a candidate of the synthesis"), "{error}");
}

#[test]
fn a_card_drawn_by_the_uniform_fallback_heats_the_world_each_day_until_removed() {
    // Counting only `happening` as a tag, no A + B shares one with a candidate: every draw is
    // the uniform fallback.
    let mut project = pack();
    project.syntheses.get_mut("smelt").unwrap().tags = vec![Id::new("happening")];
    let (mut session, card) = (1..60)
        .find_map(|seed| {
            let mut session = Session::new(project.clone(), seed).unwrap();
            let events = run(&mut session, "end-phase\nsynthesize ember_root flame_gospel");
            events.iter().find_map(|e| match e {
                Event::Synthesized { result, success: true, .. } => Some((session.clone(), result.clone())),
                _ => None,
            })
        })
        .expect("a seed where the synthesis succeeds");
    assert_eq!(session.campaign().unwrap().fallbacks.get(&card), Some(&1));
    // The next dawn: +2 entropy from the stray card, beside the dusk's own entropy rules.
    let entropy = |session: &Session| query(session, "entropy");
    run(&mut session, "end-phase");
    let at_dusk = entropy(&session);
    run(&mut session, "end-phase");
    assert_eq!(entropy(&session), at_dusk + 2.0, "the stray card's daily entropy");
    // Removing it costs 3 compute and ends the daily entropy.
    let compute = query(&session, "compute");
    let events = run(&mut session, &format!("end-phase\nremove {card}"));
    assert!(events.iter().any(|e| matches!(e, Event::CardRemoved { card: removed, .. } if *removed == card)));
    assert_eq!(query(&session, "compute"), compute - 3.0);
    assert!(session.campaign().unwrap().fallbacks.is_empty());
    let error = session.run_script(&format!("remove {card}")).unwrap_err();
    assert!(error.message.contains("no copy of that card drawn by the synthesis's uniform fallback"), "{error}");
}

#[test]
fn an_era_without_a_battle_brings_slack_discipline_and_a_battle_keeps_it_away() {
    let mut session = session();
    // Seven days of totem (three phases each) without a battle: the ignorance era begins slack.
    let days = vec!["end-phase"; 21].join("\n");
    run(&mut session, &format!("{days}\nexpect era ignorance\nexpect meter slack == 1"));
    assert_eq!(query(&session, "campaign.eras"), 2.0);
    // Its dawns bring one compute less: 2 − 1.
    run(&mut session, "set meter compute 0\nend-phase\nend-phase\nend-phase\nexpect meter compute == 1");
    // A battle in this era (the angel, fought by no one: lost) clears it at the next era.
    run(&mut session, "set meter angel_due 1\nend-phase\nexpect campaign.battles == 1");
    let rest = vec!["end-phase"; 17].join("\n");
    run(&mut session, &format!("{rest}\nexpect era enlightenment\nexpect meter slack == 0"));
}
