//! The bundle's JSON Schema (`actforge_runtime::schema`) held to the content and to FORMAT.md:
//! every pack's JSON bundle validates against it, wrong bundles are refused at their path, its
//! defaults are the model's, and every field it lists is documented in FORMAT.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::collections::BTreeSet;
use std::fmt::Debug;

use actforge_runtime::model::{
    Act, ActLink, ActModifier, Aspect, BattleRules, BattleTrigger, Board, BoardModifier, BoardPlay, Bond, CampaignDeck,
    Card, CardCycle, CardModifier, CardOption, CardPlay, Column, Corners, Deck, DeckModifier, DiceCheck, Effects,
    EntryPoints, Equipment, Era, Faces, Formula, FragmentCount, Grade, HandModifier, HitType, Item, Items, Kind,
    KindVisitor, Limits, LineMoveEffect, Manifest, MapEdge, MapNode, NodeMap, NodeOption, Paint, PaletteEntry,
    PathModifier, Patrol, Phase, Placement, Prop, Raid, Reaction, Region, Requirements, Revelation, Rule, RuleModifier,
    Scheduler, Settings, Skill, Slot, Stat, StatEffect, StatModifier, StatTrigger, StatusEffect, Synthesis,
    TableModifier, Terrain, Test, Threshold, Tile, TileMap, Tileset, Token, TurnConfig, Unit, WinCondition,
    slug_problem,
};
use actforge_runtime::project::{BundleFormat, bundle_text, load_folder};
use actforge_runtime::schema::{self, SLUG_PATTERN, bundle_schema, item_schema, resolve};
use actforge_tests::{repo_root, synthetic_project};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Every content pack's folder name.
fn packs() -> Vec<String> {
    let mut packs: Vec<String> = std::fs::read_dir(repo_root().join("content"))
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.path().join("project.ron").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    packs.sort();
    assert!(packs.len() >= 5, "{packs:?}");
    packs
}

/// The validation errors of `instance`, each as `PATH: MESSAGE`.
fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).map(|error| format!("{}: {error}", error.instance_path())).collect()
}

#[test]
fn every_pack_exported_to_json_validates_against_the_bundle_schema() {
    let validator = jsonschema::validator_for(bundle_schema()).unwrap();
    for pack in packs() {
        let project = load_folder(&repo_root().join("content").join(&pack)).unwrap().project;
        let bundle: Value = serde_json::from_str(&bundle_text(&project, BundleFormat::Json).unwrap()).unwrap();
        let problems = errors(&validator, &bundle);
        assert!(problems.is_empty(), "{pack}:\n{}", problems.join("\n"));
    }
    // Generated content reaches fields the packs leave at their defaults.
    for seed in [1, 2, 3] {
        let project = synthetic_project(300, seed);
        let bundle: Value = serde_json::from_str(&bundle_text(&project, BundleFormat::Json).unwrap()).unwrap();
        let problems = errors(&validator, &bundle);
        assert!(problems.is_empty(), "synthetic project {seed}:\n{}", problems.join("\n"));
    }
}

/// A broken bundle: where the error is, how to break it, what the message says.
type Case = (&'static str, fn(&mut Value), &'static str);

#[test]
fn a_bundle_with_a_wrong_value_is_rejected_at_its_path() {
    let validator = jsonschema::validator_for(bundle_schema()).unwrap();
    let project = load_folder(&repo_root().join("content").join("lighthouse")).unwrap().project;
    let good: Value = serde_json::from_str(&bundle_text(&project, BundleFormat::Json).unwrap()).unwrap();
    let cases: [Case; 6] = [
        ("/cards/0/unique", |bundle| bundle["cards"][0]["unique"] = json!("yes"), "is not of type \"boolean\""),
        ("/acts/0", |bundle| bundle["acts"][0]["lable"] = json!("typo"), "lable"),
        ("/cards/0/decay_to", |bundle| bundle["cards"][0]["decay_to"] = json!("Not A Slug"), "does not match"),
        ("/aspects/0/colour", |bundle| bundle["aspects"][0]["colour"] = json!("red"), "does not match"),
        ("/format", |bundle| bundle["format"] = json!("something-else"), "actforge-bundle"),
        ("/rules/0/step", |bundle| bundle["rules"][0]["step"] = json!(1.5), "is not of type \"integer\""),
    ];
    assert!(errors(&validator, &good).is_empty());
    for (path, break_it, message) in cases {
        let mut bundle = good.clone();
        break_it(&mut bundle);
        let problems = errors(&validator, &bundle);
        assert!(
            problems.iter().any(|problem| problem.starts_with(&format!("{path}: ")) && problem.contains(message)),
            "expected an error at {path} mentioning {message:?}, got {problems:#?}"
        );
    }
}

#[test]
fn the_slug_pattern_accepts_exactly_the_ids_that_load() {
    let validator = jsonschema::validator_for(&json!({"type": "string", "pattern": SLUG_PATTERN})).unwrap();
    let samples = [
        "tea_party".to_owned(),
        "_00_kitten".to_owned(),
        "a".repeat(64),
        "a".repeat(65),
        String::new(),
        "Tea".to_owned(),
        "tea-party".to_owned(),
        "1st".to_owned(),
        "über".to_owned(),
        "tea party".to_owned(),
        "tea\n".to_owned(),
    ];
    for sample in samples {
        assert_eq!(validator.is_valid(&json!(sample)), slug_problem(&sample).is_none(), "{sample:?}");
    }
}

/// Checks every item of `project` against its kind's own schema.
struct ItemsValidate(Vec<String>);

impl KindVisitor for ItemsValidate {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        let validator = jsonschema::validator_for(item_schema(T::KIND)).unwrap();
        for item in items {
            let value = serde_json::to_value(item).unwrap();
            for problem in errors(&validator, &value) {
                self.0.push(format!("{} `{}`: {problem}", T::KIND, item.id()));
            }
        }
    }
}

#[test]
fn item_schemas_are_self_contained_and_hold_every_item() {
    let mut problems = ItemsValidate(Vec::new());
    for pack in packs() {
        load_folder(&repo_root().join("content").join(&pack)).unwrap().project.visit_kinds(&mut problems);
    }
    synthetic_project(300, 7).visit_kinds(&mut problems);
    assert!(problems.0.is_empty(), "{}", problems.0.join("\n"));
    let manifest = jsonschema::validator_for(schema::manifest_schema()).unwrap();
    let project = load_folder(&repo_root().join("content").join("lighthouse")).unwrap().project;
    assert!(errors(&manifest, &serde_json::to_value(&project.manifest).unwrap()).is_empty());
}

/// A value for a required property, enough to read the struct.
fn sample(root: &Value, schema: &Value) -> Value {
    let schema = resolve(root, schema);
    if let Some(first) = schema.get("oneOf").and_then(|any| any.get(0)) {
        return sample(root, first);
    }
    if let Some(constant) = schema.get("const") {
        return constant.clone();
    }
    if let Some(pattern) = schema.get("pattern") {
        assert_eq!(pattern, SLUG_PATTERN, "no sample for {schema}");
        return json!("x");
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match types.first().copied() {
        Some("string") => json!("x"),
        Some("integer" | "number") => json!(0),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => {
            let mut object = serde_json::Map::new();
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap();
                object.insert(name.to_owned(), sample(root, &schema["properties"][name]));
            }
            Value::Object(object)
        }
        _ => panic!("no sample for {schema}"),
    }
}

/// Reading a struct with only its required fields equals reading it with every optional field
/// set to its schema `default`: the schema's defaults are the model's.
fn defaults_are_the_models<T: DeserializeOwned + PartialEq + Debug>(
    root: &Value,
    name: &str,
    checked: &mut Vec<String>,
) {
    let schema = if root["title"] == name { root } else { &root["$defs"][name] };
    assert!(schema.is_object(), "no type {name} in the schema");
    let minimal = sample(root, schema);
    let mut full = minimal.clone();
    for (field, property) in schema["properties"].as_object().unwrap() {
        if minimal.get(field).is_none() {
            let default = property.get("default").unwrap_or_else(|| panic!("{name}.{field} has no default"));
            full[field] = default.clone();
        }
    }
    let read_minimal: T =
        serde_json::from_value(minimal.clone()).unwrap_or_else(|error| panic!("{name} {minimal}: {error}"));
    let read_full: T = serde_json::from_value(full.clone()).unwrap_or_else(|error| panic!("{name} {full}: {error}"));
    assert_eq!(read_full, read_minimal, "{name}: the schema's defaults {full} read differently from the model's");
    checked.push(name.to_owned());
}

#[test]
fn every_default_in_the_schema_is_the_models() {
    let bundle = bundle_schema();
    let mut checked = Vec::new();
    macro_rules! check {
        ($($ty:ty => $name:literal),* $(,)?) => {
            $( defaults_are_the_models::<$ty>(bundle, $name, &mut checked); )*
        };
    }
    check! {
        Manifest => "Manifest", Settings => "Settings", EntryPoints => "EntryPoints",
        actforge_runtime::model::Localisation => "Localisation", actforge_runtime::locale::Translation => "Translation",
        Aspect => "Aspect", Card => "Card", CardOption => "CardOption", FragmentCount => "FragmentCount",
        Deck => "Deck", Slot => "Slot", Test => "Test", Rule => "Rule", Requirements => "Requirements",
        Effects => "Effects", ActModifier => "ActModifier", CardModifier => "CardModifier",
        TableModifier => "TableModifier", PathModifier => "PathModifier", DeckModifier => "DeckModifier",
        StatModifier => "StatModifier", RuleModifier => "RuleModifier", BoardModifier => "BoardModifier",
        BoardPlay => "BoardPlay", Act => "Act", ActLink => "ActLink", Token => "Token", Formula => "Formula",
        Stat => "Stat", Threshold => "Threshold", TurnConfig => "TurnConfig", Era => "Era",
        Synthesis => "Synthesis", DiceCheck => "DiceCheck", Board => "Board", TileMap => "TileMap",
        PaletteEntry => "PaletteEntry", Terrain => "Terrain", Column => "Column", Tile => "Tile", Corners<u8> => "Corners_of_uint8",
        Faces<f32> => "Faces_of_float", Faces<Option<Paint>> => "Faces_of_Nullable_Paint", Tileset => "Tileset",
        Placement => "Placement", Prop => "Prop", WinCondition => "WinCondition", NodeMap => "NodeMap",
        MapNode => "MapNode", MapEdge => "MapEdge", Phase => "Phase", Patrol => "Patrol", Grade => "Grade",
        CardCycle => "CardCycle", CampaignDeck => "CampaignDeck", CardPlay => "CardPlay", NodeOption => "NodeOption",
        BattleRules => "BattleRules", BattleTrigger => "BattleTrigger", Raid => "Raid",
        HandModifier => "HandModifier", Revelation => "Revelation", Bond => "Bond",
        Unit => "Unit", Limits => "Limits", Skill => "Skill", Region => "Region", HitType => "HitType",
        StatEffect => "StatEffect", StatusEffect => "StatusEffect", LineMoveEffect => "LineMoveEffect",
        Scheduler => "Scheduler",
        Equipment => "Equipment", Reaction => "Reaction", StatTrigger => "StatTrigger",
    }
    let structs: BTreeSet<&str> = bundle["$defs"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, def)| def.get("properties").is_some())
        .map(|(name, _)| name.as_str())
        .collect();
    let unchecked: Vec<&&str> = structs.iter().filter(|name| !checked.iter().any(|done| done == **name)).collect();
    assert!(unchecked.is_empty(), "add these types to the list above: {unchecked:?}");
}

/// Where FORMAT.md documents each type of the schema: the heading its section starts with.
fn format_section_of(type_name: &str) -> Option<&'static str> {
    let section = match type_name {
        "Bundle" => "## 4. Bundle",
        "Manifest" | "Settings" | "EntryPoints" | "Localisation" => "## 2. `project.ron`",
        "Translation" => "## 17. Localisation",
        "FragmentRef" | "FragmentCount" => "### Fragment references",
        "Aspect" => "### aspects/",
        "Card" | "CardOption" => "### cards/",
        "Deck" | "ShuffleMode" => "### decks/",
        "Slot" => "### slots/",
        "Test" | "Location" | "TestOp" => "### Test ",
        "Requirements" => "### Requirements",
        "Effects" | "ActModifier" | "ActOp" | "CardModifier" | "CardOp" | "TableModifier" | "TableOp"
        | "PathModifier" | "PathOp" | "DeckModifier" | "DeckOp" | "StatModifier" | "StatOp" | "RuleModifier"
        | "RuleOp" | "HandModifier" | "HandOp" | "CardPick" => "### Effects",
        "BoardModifier" | "BoardOp" | "BoardSide" | "BoardPlay" | "BoardTarget" | "BoardTiming" => "## 11. Boards",
        "Rule" => "### rules/",
        "Act" | "ActLink" => "### acts/",
        "Token" => "### tokens/",
        "Formula" => "### formulas/",
        "Stat" | "StatValue" | "Threshold" | "Crossing" => "### stats/",
        "TurnConfig" | "StatOrder" => "### turn_configs/",
        "Era" => "### eras/",
        "Synthesis" | "DiceCheck" | "Revelation" | "Bond" => "### syntheses/",
        "Board" => "### boards/",
        "TileMap"
        | "PaletteEntry"
        | "Terrain"
        | "Column"
        | "Tile"
        | "Corners_of_uint8"
        | "Faces_of_float"
        | "Faces_of_Nullable_Paint"
        | "Paint"
        | "PaletteId"
        | "Tileset"
        | "Placement"
        | "Prop"
        | "WinCondition"
        | "Scheduler"
        | "SchedulerKind" => "### tile_maps/",
        "NodeMap" | "MapNode" | "NodeKind" | "MapEdge" | "EdgeStyle" | "Phase" | "Patrol" | "Grade" | "CardCycle"
        | "CampaignDeck" | "CardPlay" | "NodeOption" | "BattleRules" | "BattleTrigger" | "Raid" => "### node_maps/",
        "Unit" | "Limits" => "### units/",
        "Equipment" => "### equipment/",
        "Skill" | "SkillKind" | "Region" | "RegionShape" | "InterveningSpace" | "FacingLock" | "HitType"
        | "StatusClock" | "StatusStacking" | "StatEffect" | "EffectTarget" | "StatusEffect" | "LineMoveEffect"
        | "Reaction" | "StatTrigger" | "StatChange" => "### skills/",
        _ => return None,
    };
    Some(section)
}

/// The section of `format` under the heading starting with `heading`, up to the next heading of
/// the same or a higher level (headings inside code blocks do not count).
fn section<'a>(format: &'a str, heading: &str) -> Option<Vec<&'a str>> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = Vec::new();
    let mut inside = false;
    let mut fenced = false;
    for line in format.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let line_level = if fenced { 0 } else { line.chars().take_while(|c| *c == '#').count() };
        if line_level > 0 && line.chars().nth(line_level) == Some(' ') {
            if inside && line_level <= level {
                break;
            }
            if line.starts_with(heading) {
                inside = true;
                continue;
            }
        }
        if inside {
            lines.push(line);
        }
    }
    inside.then_some(lines)
}

/// Every identifier written in code (between backticks) in `lines`.
fn names_in_code(lines: &[&str]) -> BTreeSet<String> {
    let text = lines.join("\n");
    text.split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|code| code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The field names of a struct schema, or the variant names of an enum schema.
fn members(schema: &Value) -> Vec<String> {
    if let Some(fields) = schema.get("properties").and_then(Value::as_object) {
        return fields.keys().cloned().collect();
    }
    let variants = schema.get("oneOf").and_then(Value::as_array).into_iter().flatten();
    variants
        .filter_map(|variant| {
            variant.get("const").and_then(Value::as_str).map(str::to_owned).or_else(|| {
                variant.get("properties").and_then(Value::as_object).and_then(|one| one.keys().next().cloned())
            })
        })
        .collect()
}

#[test]
fn every_field_and_variant_is_documented_in_its_section_of_format_md() {
    let format = std::fs::read_to_string(repo_root().join("FORMAT.md")).unwrap();
    let bundle = bundle_schema();
    let mut types: Vec<(&str, &Value)> = vec![("Bundle", bundle)];
    types.extend(bundle["$defs"].as_object().unwrap().iter().map(|(name, def)| (name.as_str(), def)));
    let mut missing = Vec::new();
    for (name, schema) in types {
        let Some(heading) = format_section_of(name) else {
            missing.push(format!("{name}: no FORMAT.md section is known for it (add one to `format_section_of`)"));
            continue;
        };
        let Some(lines) = section(&format, heading) else {
            missing.push(format!("{name}: FORMAT.md has no section `{heading}`"));
            continue;
        };
        let documented = names_in_code(&lines);
        let absent: Vec<String> = members(schema).into_iter().filter(|member| !documented.contains(member)).collect();
        if !absent.is_empty() {
            missing.push(format!("{name} (in `{}`): {}", heading.trim(), absent.join(", ")));
        }
    }
    assert!(missing.is_empty(), "FORMAT.md §3 does not document, in code:\n{}", missing.join("\n"));
}

#[test]
fn each_kind_has_its_own_section() {
    let format = std::fs::read_to_string(repo_root().join("FORMAT.md")).unwrap();
    for kind in Kind::ALL {
        let schema = item_schema(*kind);
        let name = schema["title"].as_str().unwrap();
        let heading = format_section_of(name).unwrap();
        assert_eq!(heading, format!("### {}/", kind.folder()), "{kind}");
        let title = format!("{heading} — {name}");
        assert!(format.lines().any(|line| line == title), "FORMAT.md needs the heading `{title}`");
    }
}
