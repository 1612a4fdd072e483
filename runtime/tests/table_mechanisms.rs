//! Table mechanisms of issue 28 through the Session API: Game Over from a rule (§2.15), window
//! capacity as content, mutators (§2.11.5) and hidden aspects.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use actforge_runtime::engine::{Event, Holder, Session, Status};
use actforge_runtime::model::{
    Act, ActLink, ActModifier, Aspect, Card, CardModifier, CardOp, Deck, DeckModifier, Effects, Expr, FragmentCount,
    FragmentRef, Id, PathModifier, PathOp, Project, Rule, Slot, Token,
};

fn aspect(id: &str) -> FragmentRef {
    FragmentRef::Aspect(Id::new(id))
}

fn card_ref(id: &str) -> FragmentRef {
    FragmentRef::Card(Id::new(id))
}

/// Every card in the world is somewhere a holder reaches (none is an orphan).
fn no_orphan_cards(session: &Session) -> bool {
    let state = session.state();
    state.cards.len() == state.cards_of(Holder::Root).len()
}

/// A `desk` whose instant act `doom` gains `dread`, whose trigger rule ends the game into
/// `restart`; `doom` itself would make the unique `crown` and spawns `aftermath` in a `bell`.
fn doomed_desk() -> Project {
    let mut project = Project::default();
    project.manifest.entry.tokens = vec![Id::new("desk")];
    project.tokens.insert(Token { id: Id::new("desk"), label: "Desk".into(), ..Token::default() });
    project.tokens.insert(Token { id: Id::new("bell"), label: "Bell".into(), ..Token::default() });
    project.aspects.insert(Aspect { id: Id::new("dread"), rules: vec![Id::new("end_it")], ..Aspect::default() });
    project.cards.insert(Card { id: Id::new("crown"), label: "Crown".into(), unique: true, ..Card::default() });
    project.rules.insert(Rule {
        id: Id::new("end_it"),
        effects: Effects {
            path_modifiers: vec![PathModifier {
                op: PathOp::GameOver,
                act: Some(Id::new("restart")),
                ..PathModifier::default()
            }],
            ..Effects::default()
        },
        ..Rule::default()
    });
    let make_crown = Effects {
        act_modifiers: vec![ActModifier {
            fragment: Some(card_ref("crown")),
            level: Expr::int(1),
            ..ActModifier::default()
        }],
        ..Effects::default()
    };
    project.acts.insert(Act {
        id: Id::new("doom"),
        token: Some(Id::new("desk")),
        fragments: vec![FragmentCount::new(aspect("dread"), 1)],
        effects: make_crown.clone(),
        spawned_acts: vec![ActLink::to("aftermath")],
        ..Act::default()
    });
    project.acts.insert(Act {
        id: Id::new("restart"),
        label: "Again".into(),
        token: Some(Id::new("desk")),
        effects: make_crown,
        ..Act::default()
    });
    project.acts.insert(Act {
        id: Id::new("aftermath"),
        label: "Aftermath".into(),
        token: Some(Id::new("bell")),
        duration_ticks: Expr::int(10),
        ..Act::default()
    });
    project
}

#[test]
fn game_over_from_a_trigger_rule_leaves_no_orphan_and_keeps_the_completions_spawned_acts() {
    let mut session = Session::new(doomed_desk(), 1).unwrap();
    let events = session.force_act("doom").unwrap();
    assert!(events.iter().any(|event| matches!(event, Event::GameOver { .. })), "{events:?}");
    // The act's own modifiers did not run on the removed window: no invisible crown blocks
    // the unique type, so the restart made the one crown there is, visibly.
    assert!(no_orphan_cards(&session), "{:?}", session.state().cards);
    assert_eq!(session.query("anywhere.card.crown").unwrap(), 1.0);
    // The completion that issued the Game Over still spawned its acts (§2.15).
    let bell = session.find_token("bell").expect("the spawned act's token survives the Game Over");
    assert_eq!(session.state().window(bell).unwrap().status, Status::Running);
    assert_eq!(session.state().window(bell).unwrap().active, Some(Id::new("aftermath")));
    let desk = session.find_token("desk").unwrap();
    assert_eq!(session.state().window(desk).unwrap().title, "Again");
}

#[test]
fn game_over_from_a_furthermore_rule_drops_the_rest_of_the_context() {
    let mut project = doomed_desk();
    // Now the Game Over comes from the act's own furthermore rule, and the act draws from a
    // deck: deck modifiers are performed after path modifiers, so the draw would land in the
    // removed window.
    project.aspects.get_mut("dread").unwrap().rules.clear();
    project.decks.insert(Deck { id: Id::new("regalia"), fragments: vec![Id::new("crown")], ..Deck::default() });
    let doom = project.acts.get_mut("doom").unwrap();
    doom.effects.furthermore = vec![Id::new("end_it")];
    doom.effects.act_modifiers.clear();
    doom.effects.deck_modifiers = vec![DeckModifier { deck: Some(Id::new("regalia")), ..DeckModifier::default() }];
    let mut session = Session::new(project, 1).unwrap();
    session.force_act("doom").unwrap();
    assert!(no_orphan_cards(&session), "{:?}", session.state().cards);
    assert_eq!(session.query("anywhere.card.crown").unwrap(), 1.0, "the restart's crown");
    assert!(session.find_token("bell").is_some(), "spawned acts survive");
}

/// A `bed` whose `nap` transforms the slotted kitten into the mutator `sleepy` (`{{Sleepy}}`,
/// 30 ticks).
fn sleepy_kitten() -> Project {
    let mut project = Project::default();
    project.manifest.entry.tokens = vec![Id::new("bed")];
    project.manifest.entry.cards = vec![Id::new("kitten")];
    project.slots.insert(Slot { id: Id::new("cushion"), accept_all: true, ..Slot::default() });
    project.tokens.insert(Token {
        id: Id::new("bed"),
        label: "Bed".into(),
        slot: Some(Id::new("cushion")),
        ..Token::default()
    });
    project.aspects.insert(Aspect { id: Id::new("furry"), ..Aspect::default() });
    project.cards.insert(Card {
        id: Id::new("kitten"),
        label: "Kitten".into(),
        fragments: vec![FragmentCount::new(aspect("furry"), 2)],
        ..Card::default()
    });
    project.cards.insert(Card {
        id: Id::new("sleepy"),
        label: "{{Sleepy}}".into(),
        lifetime_ticks: Expr::int(30),
        ..Card::default()
    });
    project.acts.insert(Act {
        id: Id::new("nap"),
        token: Some(Id::new("bed")),
        initial: true,
        effects: Effects {
            card_modifiers: vec![CardModifier {
                op: CardOp::Transform,
                target: Some(card_ref("kitten")),
                fragment: Some(card_ref("sleepy")),
                level: Expr::int(1),
                ..CardModifier::default()
            }],
            ..Effects::default()
        },
        ..Act::default()
    });
    project
}

#[test]
fn a_mutator_shows_its_status_for_its_lifetime_and_the_card_keeps_its_type() {
    let mut session = Session::new(sleepy_kitten(), 1).unwrap();
    let script = "\
slot kitten bed
start bed
collect bed
expect label kitten \"Kitten\\n[Sleepy]\"
expect anywhere.card.kitten == 1 and anywhere.card.sleepy == 0 and table.aspect.furry == 2
expect event CardMutated
wait 34
expect label kitten \"Kitten\\n[Sleepy]\"
wait 1
expect label kitten \"Kitten\"
expect anywhere.card.kitten == 1 and table.aspect.furry == 2
";
    let report = session.run_script(script);
    assert!(report.is_ok(), "{report:?}");
    let kitten = session.state().cards.iter().find(|(_, card)| card.card.as_str() == "kitten").unwrap();
    assert_eq!(kitten.1.mutator, None);
    assert_eq!(kitten.1.decay, None, "the kitten's own type never decays");
}

/// A `loom` whose initial act `weave` opens three run slots, `warp`, `weft` and `dye`.
fn loom(run_places: u32) -> Project {
    let mut project = Project::new("loom");
    project.manifest.entry.tokens = vec![Id::new("loom")];
    project.manifest.entry.cards = vec![Id::new("thread")];
    for slot in ["frame", "warp", "weft", "dye"] {
        project.slots.insert(Slot { id: Id::new(slot), accept_all: true, ..Slot::default() });
    }
    project.cards.insert(Card { id: Id::new("thread"), label: "Thread".into(), ..Card::default() });
    project.tokens.insert(Token {
        id: Id::new("loom"),
        label: "Loom".into(),
        slot: Some(Id::new("frame")),
        run_places,
        ..Token::default()
    });
    project.acts.insert(Act {
        id: Id::new("weave"),
        token: Some(Id::new("loom")),
        initial: true,
        duration_ticks: Expr::int(10),
        slots: vec![Id::new("warp"), Id::new("weft"), Id::new("dye")],
        ..Act::default()
    });
    project
}

#[test]
fn a_token_holds_as_many_run_places_as_its_content_says() {
    let script = "slot thread loom\nstart loom\nexpect slots loom warp weft dye\n";
    let mut roomy = Session::new(loom(3), 1).unwrap();
    let report = roomy.run_script(script);
    assert!(report.is_ok(), "{report:?}");
    let loom_key = roomy.find_token("loom").unwrap();
    let window = roomy.state().window(loom_key).unwrap();
    assert_eq!((window.idle_range(), window.run_range()), (0..6, 6..9));
    // The stock window (one run place, the default) opens the first only.
    assert_eq!(Token::default().run_places, 1);
    let mut session = Session::new(loom(Token::default().run_places), 1).unwrap();
    session.run_script("slot thread loom\nstart loom\nexpect slots loom warp\n").unwrap();
}

#[test]
fn check_warns_at_the_act_when_it_opens_more_slots_than_its_window_holds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("loom");
    actforge_runtime::project::save_new_folder(&loom(1), &root).unwrap();
    // The stock capacity is the default: the token file does not mention it.
    let token_file = std::fs::read_to_string(root.join("tokens/loom.ron")).unwrap();
    assert!(!token_file.contains("places"), "{token_file}");
    let loaded = actforge_runtime::project::load_folder(&root).unwrap();
    let found = actforge_runtime::validate::validate(&loaded.project, &loaded.sources, Some(&root));
    let warning = found
        .iter()
        .find(|d| d.message.contains("run place"))
        .unwrap_or_else(|| panic!("no capacity warning in {found:?}"));
    assert_eq!(warning.severity, actforge_runtime::diagnostic::Severity::Warning);
    assert!(warning.message.contains("can open 3 slots") && warning.message.contains("1 run place"), "{warning}");
    assert!(warning.file.as_ref().unwrap().ends_with("acts/weave.ron"), "{warning:?}");
    let position = warning.position.unwrap();
    let act_file = std::fs::read_to_string(root.join("acts/weave.ron")).unwrap();
    let line = act_file.lines().nth(position.line - 1).unwrap();
    assert!(line.trim_start().starts_with("slots"), "{position:?} is not at `slots` in\n{act_file}");
    // Room for all three: no warning.
    actforge_runtime::project::save_new_folder(&loom(3), &dir.path().join("roomy")).unwrap();
    let loaded = actforge_runtime::project::load_folder(&dir.path().join("roomy")).unwrap();
    let found = actforge_runtime::validate::validate(&loaded.project, &loaded.sources, None);
    assert!(!found.iter().any(|d| d.message.contains("run place")), "{found:?}");
}

/// A `stone` holding `warmth` 2 and the hidden `curse` 1, lying on the table and slotted into
/// an `altar`.
fn cursed_stone() -> Project {
    let mut project = Project::new("stone");
    project.manifest.entry.tokens = vec![Id::new("altar")];
    project.manifest.entry.cards = vec![Id::new("stone"), Id::new("stone")];
    project.aspects.insert(Aspect { id: Id::new("warmth"), label: "Warmth".into(), ..Aspect::default() });
    project.aspects.insert(Aspect { id: Id::new("curse"), label: "Curse".into(), hidden: true, ..Aspect::default() });
    project.cards.insert(Card {
        id: Id::new("stone"),
        label: "Stone".into(),
        fragments: vec![FragmentCount::new(aspect("warmth"), 2), FragmentCount::new(aspect("curse"), 1)],
        ..Card::default()
    });
    project.slots.insert(Slot { id: Id::new("plinth"), accept_all: true, ..Slot::default() });
    project.tokens.insert(Token { id: Id::new("altar"), slot: Some(Id::new("plinth")), ..Token::default() });
    project
}

#[test]
fn hidden_aspects_are_left_out_of_fragment_bars_unless_asked_for_debug() {
    let mut session = Session::new(cursed_stone(), 1).unwrap();
    session.run_script("slot stone altar").unwrap();
    let stone = *session.state().table.first().unwrap();
    let names = |bar: Vec<actforge_runtime::engine::AspectShown>| -> Vec<(String, String, i64, bool)> {
        bar.into_iter().map(|a| (a.aspect.to_string(), a.label, a.count, a.hidden)).collect()
    };
    assert_eq!(names(session.card_aspects(stone, false)), [("warmth".into(), "Warmth".into(), 2, false)]);
    assert_eq!(
        names(session.card_aspects(stone, true)),
        [("curse".into(), "Curse".into(), 1, true), ("warmth".into(), "Warmth".into(), 2, false)]
    );
    // The window's bar sums what its tests count: the slotted stone's aspects.
    let altar = session.find_token("altar").unwrap();
    assert_eq!(names(session.window_aspects(altar, false)), [("warmth".into(), "Warmth".into(), 2, false)]);
    assert_eq!(session.window_aspects(altar, true).len(), 2);
    assert!(!session.aspect_shown("curse") && session.aspect_shown("warmth"));
    assert_eq!(
        actforge_runtime::engine::describe_aspects(&session.window_aspects(altar, true)),
        "curse 1 (hidden), warmth 2"
    );
}
