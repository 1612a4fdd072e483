//! Cultistlike content (Unity YAML `.asset` files, `spec/cultistlike.md` §1 and §3) into an
//! Actforge project. FORMAT.md ("Importing Cultistlike content") says what maps to what.
//!
//! The steps: every `.meta` gives a GUID → file map; every `.asset` is parsed (scalars as
//! text) and typed by its `m_Script` GUID; ids are `slugify(m_Name)`, unique per kind; then
//! each asset becomes one item, its references resolved through the GUID map. The four
//! special fragments of `Sos/` become `FragmentRef::{ThisFragment, ThisCard, MatchedCards,
//! MemoryFragment}` instead of items.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::diagnostic::{Diagnostic, Position, Severity};
use crate::model::{
    Act, ActLink, ActModifier, ActOp, Aspect, Card, CardModifier, CardOp, Colour, Deck, DeckModifier, DeckOp, Effects,
    Expr, FragmentCount, FragmentRef, Id, Kind, Location, MAX_ID_LEN, Manifest, PathModifier, PathOp, Project,
    Requirements, Rule, ShuffleMode, Slot, TableModifier, TableOp, Test, TestOp, Token, slugify,
};

use super::ImportError;
use super::unity_yaml::{self, Node, Value};

/// What the import cannot learn from the assets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CultistlikeOptions {
    /// Tokens on the table at the start, by asset name (`m_Name`) or imported id; none: the
    /// known demo scenes are recognised (`spec/cultistlike.md` §3.5).
    pub start_tokens: Vec<String>,
    /// Cards on the table at the start, by asset name or imported id.
    pub start_cards: Vec<String>,
}

/// What an import produced.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The project (not yet written anywhere).
    pub project: Project,
    /// What was dropped, changed or wrong, with the source file and field.
    pub diagnostics: Vec<Diagnostic>,
    /// Pictures the items' `art` names, relative to the source folder; the project expects
    /// them at the same paths relative to its own folder.
    pub art: Vec<PathBuf>,
}

/// Imports the Cultistlike assets under `folder` with default options.
pub fn import_cultistlike(folder: &Path) -> Result<(Project, Vec<Diagnostic>), ImportError> {
    let imported = import_cultistlike_with(folder, &CultistlikeOptions::default())?;
    Ok((imported.project, imported.diagnostics))
}

/// Imports the Cultistlike assets under `folder` (any depth: `Resources/`, `Sos/`, sprites and
/// script metas). Problems in single files are diagnostics; the rest still imports.
pub fn import_cultistlike_with(folder: &Path, options: &CultistlikeOptions) -> Result<Imported, ImportError> {
    if !folder.is_dir() {
        return Err(ImportError::NotAFolder { path: folder.to_owned() });
    }
    let files = list_files(folder)?;
    if !files.iter().any(|file| has_extension(file, "asset")) {
        return Err(ImportError::NoAssets { path: folder.to_owned() });
    }
    let mut diagnostics = Vec::new();
    let metas = read_metas(folder, &files, &mut diagnostics);
    let mut assets = read_assets(folder, &files, &metas, &mut diagnostics);
    mark_resources(folder, &mut assets, &mut diagnostics);
    assign_ids(folder, &mut assets, &mut diagnostics);
    let index = Index::new(metas, assets);

    let manifest = Manifest {
        description: "Imported from Cultistlike assets (Unity YAML).".to_owned(),
        ..Manifest::new(&folder_name(folder))
    };
    let mut project = Project { manifest, ..Project::default() };
    let names = TextNames::new(&index.assets);
    let tokenless_acts = tokenless_acts(&index);
    let mut art = BTreeSet::new();
    let ticks_per_second = project.manifest.settings.ticks_per_second;
    for asset in index.assets.iter().filter(|asset| asset.special.is_none()) {
        let mut reader = Reader {
            folder,
            index: &index,
            names: &names,
            tokenless_acts: &tokenless_acts,
            asset,
            ticks_per_second,
            diagnostics: &mut diagnostics,
            art: &mut art,
        };
        reader.convert(&mut project);
    }
    check_initial_order(folder, &project, &index.assets, &mut diagnostics);
    set_entry_points(&mut project, &index.assets, options, &mut diagnostics);
    Ok(Imported { project, diagnostics, art: art.into_iter().collect() })
}

// ---------------------------------------------------------------------------------------
// Known GUIDs and names.

/// Script GUIDs of the content types (`spec/cultistlike.md` §3.3).
const CONTENT_SCRIPTS: &[(&str, AssetType)] = &[
    ("da4f913036c64cb44bbf11356c320551", AssetType::Act),
    ("936a4de03f38f8c4a824dc6199e33e5d", AssetType::Aspect),
    ("6d7ad74be29e3414894e2ccf6a7e39e6", AssetType::Card),
    ("51464b304bacc114e9344784d1851bb0", AssetType::Deck),
    ("557f5e0557567a048a53124377707548", AssetType::Rule),
    ("8982c193c92b64445902a2eec82848b5", AssetType::Slot),
    ("4b90be55e95f4914094bbfa9c44b694b", AssetType::Token),
];

/// The abstract Fragment base: no asset should ever have it.
const FRAGMENT_SCRIPT: &str = "541f1571b8cef5c49a7a81786c481b75";

/// The special fragments of `Sos/` (`spec/cultistlike.md` §1.12), by GUID and by name.
const SPECIALS: &[(&str, &str, Special)] = &[
    ("e32b76eebd1bfe04394bd167e13d81f3", "___ThisFragment", Special::ThisFragment),
    ("061650b8809ec324497d66707b41c540", "___ThisCard", Special::ThisCard),
    ("359609367f1923146b1068c9f2375786", "___MatchedCards", Special::MatchedCards),
    ("7b2646c88635c0c4e8203394fc991144", "___MemoryFragment", Special::MemoryFragment),
    ("d9bffe678047ce74b8ab5f91a9f29e6d", "zzzAllowed", Special::UiOnly),
    ("f305adb0b4084b14f909871f8351d374", "zzzForbidden", Special::UiOnly),
    ("b31607579883ed647a9b340063dc06ed", "zzzDrawn", Special::UiOnly),
];

/// What the demo scenes put on the table (`spec/cultistlike.md` §3.5): scene, token, card.
const KNOWN_SCENES: &[(&str, &str, &str)] =
    &[("Demo1", "Tea Party", "Somebody you Knew"), ("Demo2", "Explore", "New Adventure")];

/// Unity's bookkeeping keys: present in every asset, meaningless to the game.
const BOOKKEEPING: &[&str] = &[
    "m_ObjectHideFlags",
    "m_CorrespondingSourceObject",
    "m_PrefabInstance",
    "m_PrefabAsset",
    "m_GameObject",
    "m_Enabled",
    "m_EditorHideFlags",
    "m_Script",
    "m_Name",
    "m_EditorClassIdentifier",
];

/// The Unity file id of a native asset's main object (and of a self reference).
const MAIN_OBJECT: &str = "11400000";

/// Extensions of pictures Unity imports as textures.
const PICTURES: &[&str] = &["png", "jpg", "jpeg", "psd", "tga", "gif", "bmp", "tif", "tiff", "exr", "hdr"];

/// A Cultistlike asset type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum AssetType {
    Aspect,
    Card,
    Deck,
    Slot,
    Rule,
    Act,
    Token,
}

impl AssetType {
    fn kind(self) -> Kind {
        match self {
            Self::Aspect => Kind::Aspect,
            Self::Card => Kind::Card,
            Self::Deck => Kind::Deck,
            Self::Slot => Kind::Slot,
            Self::Rule => Kind::Rule,
            Self::Act => Kind::Act,
            Self::Token => Kind::Token,
        }
    }

    /// The type of a script file named `name.cs`.
    fn from_script_name(name: &str) -> Option<Self> {
        [Self::Aspect, Self::Card, Self::Deck, Self::Slot, Self::Rule, Self::Act, Self::Token]
            .into_iter()
            .find(|ty| ty.kind().label() == name)
    }

    /// "an act", "a card"…
    fn with_article(self) -> String {
        let label = self.kind().label().to_lowercase();
        let article = if label.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        format!("{article} {label}")
    }
}

/// A fragment the original engine recognises by identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    ThisFragment,
    ThisCard,
    MatchedCards,
    MemoryFragment,
    /// An icon of the original's UI (`zzzAllowed`, `zzzForbidden`, `zzzDrawn`).
    UiOnly,
}

impl Special {
    fn fragment(self) -> Option<FragmentRef> {
        match self {
            Self::ThisFragment => Some(FragmentRef::ThisFragment),
            Self::ThisCard => Some(FragmentRef::ThisCard),
            Self::MatchedCards => Some(FragmentRef::MatchedCards),
            Self::MemoryFragment => Some(FragmentRef::MemoryFragment),
            Self::UiOnly => None,
        }
    }

    fn of(guid: Option<&str>, name: &str) -> Option<Self> {
        SPECIALS
            .iter()
            .find(|(special_guid, special_name, _)| Some(*special_guid) == guid || *special_name == name)
            .map(|(_, _, special)| *special)
    }
}

// ---------------------------------------------------------------------------------------
// Files, metas and assets.

/// Every file under `folder`, relative to it, in path order (hidden entries skipped).
fn list_files(folder: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let path = folder.join(&relative);
        let entries = fs::read_dir(&path).map_err(|error| ImportError::io(&path, error))?;
        for entry in entries {
            let entry = entry.map_err(|error| ImportError::io(&path, error))?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let child = relative.join(&name);
            // The entry's own type: symbolic links to folders are not followed (no cycles).
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(child),
                Ok(_) => files.push(child),
                Err(error) => return Err(ImportError::io(&entry.path(), error)),
            }
        }
    }
    files.sort();
    Ok(files)
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case(extension))
}

fn folder_name(folder: &Path) -> String {
    let name = |path: &Path| path.file_name().map(|name| name.to_string_lossy().into_owned());
    // `.` or `..` have no name of their own: use the folder's real one.
    name(folder).or_else(|| name(&fs::canonicalize(folder).ok()?)).unwrap_or_default()
}

/// A path for messages and `art` fields: `/` between components on every system.
fn slash_path(path: &Path) -> String {
    path.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// What a `.meta` file describes.
#[derive(Clone, Debug)]
enum MetaTarget {
    /// An `.asset` file (its path).
    Asset(PathBuf),
    /// A picture (its path).
    Texture(PathBuf),
    /// A C# script (its name without `.cs`).
    Script(String),
    /// Anything else (its path).
    Other(PathBuf),
}

/// The GUIDs of every `.meta` file.
struct Metas {
    by_guid: HashMap<String, MetaTarget>,
    /// The GUID of each `.asset` file.
    asset_guids: HashMap<PathBuf, String>,
}

fn read_text(folder: &Path, relative: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    let path = folder.join(relative);
    match fs::read(&path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).ok();
            if text.is_none() {
                diagnostics.push(Diagnostic::error("this file is not UTF-8 text; not imported").in_file(path));
            }
            text
        }
        Err(error) => {
            diagnostics.push(Diagnostic::error(format!("cannot read: {error}")).in_file(path));
            None
        }
    }
}

fn yaml_error(path: PathBuf, error: &unity_yaml::YamlError) -> Diagnostic {
    Diagnostic::error(format!("this file is not valid YAML: {}; not imported", error.message))
        .in_file(path)
        .at(Some(error.at))
}

fn read_metas(folder: &Path, files: &[PathBuf], diagnostics: &mut Vec<Diagnostic>) -> Metas {
    let mut metas = Metas { by_guid: HashMap::new(), asset_guids: HashMap::new() };
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    for relative in files.iter().filter(|file| has_extension(file, "meta")) {
        let Some(text) = read_text(folder, relative, diagnostics) else { continue };
        let documents = match unity_yaml::parse(&text) {
            Ok(documents) => documents,
            Err(error) => {
                diagnostics.push(yaml_error(folder.join(relative), &error));
                continue;
            }
        };
        let Some(meta) = documents.first() else { continue };
        if meta.get("folderAsset").and_then(Node::as_str) == Some("yes") {
            continue;
        }
        let Some(guid) = meta.get("guid").and_then(Node::as_str).filter(|guid| !guid.is_empty()) else {
            diagnostics.push(
                Diagnostic::warning("this .meta file has no `guid:`; nothing can refer to its file")
                    .in_file(folder.join(relative)),
            );
            continue;
        };
        let guid = guid.to_ascii_lowercase();
        let target = relative.with_extension("");
        if let Some(first) = first_file.get(&guid) {
            diagnostics.push(
                Diagnostic::error(format!(
                    "the GUID {guid} is also claimed by {}; references go to that file, this one is ignored",
                    slash_path(first)
                ))
                .in_file(folder.join(relative))
                .at(meta.get("guid").map(|node| node.at)),
            );
            continue;
        }
        first_file.insert(guid.clone(), relative.clone());
        let described = if has_extension(&target, "asset") {
            metas.asset_guids.insert(target.clone(), guid.clone());
            MetaTarget::Asset(target)
        } else if PICTURES.iter().any(|ext| has_extension(&target, ext)) {
            MetaTarget::Texture(target)
        } else if has_extension(&target, "cs") {
            MetaTarget::Script(target.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default())
        } else {
            MetaTarget::Other(target)
        };
        metas.by_guid.insert(guid, described);
    }
    metas
}

/// One parsed content asset.
#[derive(Debug)]
struct Asset {
    /// Path relative to the source folder.
    relative: PathBuf,
    guid: Option<String>,
    /// `m_Name`.
    name: String,
    ty: AssetType,
    /// The `MonoBehaviour` mapping.
    body: Node,
    /// Under a `Resources` folder: scanned by the original for initial acts and global slots.
    in_resources: bool,
    special: Option<Special>,
    /// The Actforge id (empty for special fragments).
    id: String,
}

fn read_assets(folder: &Path, files: &[PathBuf], metas: &Metas, diagnostics: &mut Vec<Diagnostic>) -> Vec<Asset> {
    let mut assets = Vec::new();
    for relative in files.iter().filter(|file| has_extension(file, "asset")) {
        let path = folder.join(relative);
        let Some(text) = read_text(folder, relative, diagnostics) else { continue };
        let mut documents = match unity_yaml::parse(&text) {
            Ok(documents) => documents.into_iter(),
            Err(error) => {
                diagnostics.push(yaml_error(path, &error));
                continue;
            }
        };
        let Some(document) = documents.next() else {
            diagnostics.push(Diagnostic::warning("this asset file is empty; not imported").in_file(path));
            continue;
        };
        if let Some(extra) = documents.next() {
            diagnostics.push(
                Diagnostic::warning("this file holds more than one object; only the first is imported")
                    .in_file(path.clone())
                    .at(Some(extra.at)),
            );
        }
        let Some(body) = document.get("MonoBehaviour").filter(|body| body.as_map().is_some()) else {
            diagnostics.push(
                Diagnostic::warning("not a ScriptableObject asset (no `MonoBehaviour:` mapping); not imported")
                    .in_file(path)
                    .at(Some(document.at)),
            );
            continue;
        };
        let guid = metas.asset_guids.get(relative).cloned();
        let Some(ty) = asset_type(body, metas, &path, diagnostics) else { continue };
        let stem = relative.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
        let name = body.get("m_Name").and_then(Node::as_str).filter(|name| !name.is_empty()).map(str::to_owned);
        let name = name.unwrap_or_else(|| {
            diagnostics
                .push(Diagnostic::warning("the asset has no `m_Name`; its file name is used").in_file(path.clone()));
            stem
        });
        if guid.is_none() {
            diagnostics.push(
                Diagnostic::warning(
                    "the asset has no .meta file, so no GUID: other assets cannot refer to it (imported anyway)",
                )
                .in_file(path),
            );
        }
        let special = Special::of(guid.as_deref(), &name);
        assets.push(Asset {
            relative: relative.clone(),
            guid,
            name,
            ty,
            body: body.clone(),
            in_resources: false,
            special,
            id: String::new(),
        });
    }
    assets
}

/// The content type of an asset from its `m_Script` GUID, or a diagnostic.
fn asset_type(body: &Node, metas: &Metas, path: &Path, diagnostics: &mut Vec<Diagnostic>) -> Option<AssetType> {
    let script = body.get("m_Script");
    let at = script.map(|node| node.at);
    let Some(guid) = script.and_then(|node| node.get("guid")).and_then(Node::as_str) else {
        diagnostics.push(
            Diagnostic::warning(
                "the asset names no script (`m_Script: {…, guid: …}`), so its type is unknown; not imported",
            )
            .in_file(path)
            .at(at.or(Some(body.at))),
        );
        return None;
    };
    let guid = guid.to_ascii_lowercase();
    if let Some((_, ty)) = CONTENT_SCRIPTS.iter().find(|(known, _)| *known == guid) {
        return Some(*ty);
    }
    let message = match metas.by_guid.get(&guid) {
        Some(MetaTarget::Script(name)) => match AssetType::from_script_name(name) {
            Some(ty) => return Some(ty),
            None => format!("the script {name}.cs is not a Cultistlike content type; not imported"),
        },
        _ if guid == FRAGMENT_SCRIPT => {
            "the asset is of the abstract Fragment type, which the original never instantiates; not imported".to_owned()
        }
        _ => format!("the script GUID {guid} is not a Cultistlike content type; not imported"),
    };
    diagnostics.push(Diagnostic::warning(message).in_file(path).at(at));
    None
}

/// Marks the assets under a `Resources` folder (the only ones the original scans for initial
/// acts and global slots). A folder without any `Resources` is taken as all content.
fn mark_resources(folder: &Path, assets: &mut [Asset], diagnostics: &mut Vec<Diagnostic>) {
    let base = fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned());
    let is_resources = |part: Component<'_>| part.as_os_str() == "Resources";
    let base_is_resources = base.components().any(is_resources);
    for asset in assets.iter_mut() {
        asset.in_resources = base_is_resources || asset.relative.components().any(is_resources);
    }
    let content = assets.iter().filter(|asset| asset.special.is_none());
    if content.clone().count() > 0 && !content.clone().any(|asset| asset.in_resources) {
        diagnostics.push(
            Diagnostic::new(
                Severity::Info,
                "no asset lies under a Resources folder; all of them are taken as content (initial acts, global slots)",
            )
            .in_file(folder),
        );
        for asset in assets.iter_mut() {
            asset.in_resources = true;
        }
    }
}

/// Gives every content asset its id: `slugify(m_Name)`, with `_2`, `_3`… for repeats within
/// a kind (in path order, so the same folder always gives the same ids).
fn assign_ids(folder: &Path, assets: &mut [Asset], diagnostics: &mut Vec<Diagnostic>) {
    let mut taken: HashMap<(AssetType, String), (String, PathBuf)> = HashMap::new();
    for asset in assets.iter_mut().filter(|asset| asset.special.is_none()) {
        let base = slugify(&asset.name);
        let mut id = base.clone();
        let mut n = 2;
        while taken.contains_key(&(asset.ty, id.clone())) {
            let suffix = format!("_{n}");
            let mut shortened = base.clone();
            shortened.truncate(MAX_ID_LEN.saturating_sub(suffix.len()));
            id = shortened + &suffix;
            n += 1;
        }
        if id != base
            && let Some((other, other_path)) = taken.get(&(asset.ty, base.clone()))
        {
            diagnostics.push(
                Diagnostic::new(
                    Severity::Info,
                    format!(
                        "the id `{base}` is already {} `{other}` ({}), so this one is `{id}`",
                        asset.ty.with_article(),
                        slash_path(other_path)
                    ),
                )
                .in_file(folder.join(&asset.relative))
                .for_item(asset.ty.kind(), &id),
            );
        }
        taken.insert((asset.ty, id.clone()), (asset.name.clone(), asset.relative.clone()));
        asset.id = id;
    }
}

/// What a GUID resolves to once the assets are read.
enum Target {
    Asset(usize),
    Texture(PathBuf),
    Script(String),
    /// An `.asset` with a `.meta` that did not import.
    Skipped(PathBuf),
    Other(PathBuf),
}

struct Index {
    by_guid: HashMap<String, Target>,
    assets: Vec<Asset>,
}

impl Index {
    fn new(metas: Metas, assets: Vec<Asset>) -> Self {
        let position: HashMap<&str, usize> =
            assets.iter().enumerate().filter_map(|(at, asset)| Some((asset.guid.as_deref()?, at))).collect();
        let by_guid = metas
            .by_guid
            .into_iter()
            .map(|(guid, meta)| {
                let target = match meta {
                    MetaTarget::Asset(path) => match position.get(guid.as_str()) {
                        Some(at) => Target::Asset(*at),
                        None => Target::Skipped(path),
                    },
                    MetaTarget::Texture(path) => Target::Texture(path),
                    MetaTarget::Script(name) => Target::Script(name),
                    MetaTarget::Other(path) => Target::Other(path),
                };
                (guid, target)
            })
            .collect();
        Self { by_guid, assets }
    }
}

/// The ids of the acts whose `token` does not name a token.
fn tokenless_acts(index: &Index) -> HashSet<String> {
    let has_token = |act: &Asset| {
        let Some(node) = act.body.get("token") else { return false };
        let Some(guid) = node.get("guid").and_then(Node::as_str) else { return false };
        let target = index.by_guid.get(&guid.to_ascii_lowercase());
        node.get("fileID").and_then(Node::as_str) != Some("0")
            && matches!(target, Some(Target::Asset(at))
                if index.assets.get(*at).is_some_and(|token| token.ty == AssetType::Token && token.special.is_none()))
    };
    index
        .assets
        .iter()
        .filter(|asset| asset.special.is_none() && asset.ty == AssetType::Act && !has_token(asset))
        .map(|asset| asset.id.clone())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Text interpolation keys (`spec/cultistlike.md` §2.10).

/// Asset names that texts may count, with the ids they become.
struct TextNames {
    aspects: HashMap<String, String>,
    cards: HashMap<String, String>,
    aspect_ids: HashSet<String>,
}

impl TextNames {
    fn new(assets: &[Asset]) -> Self {
        let mut names = Self { aspects: HashMap::new(), cards: HashMap::new(), aspect_ids: HashSet::new() };
        for asset in assets.iter().filter(|asset| asset.special.is_none()) {
            let map = match asset.ty {
                AssetType::Aspect => {
                    names.aspect_ids.insert(asset.id.clone());
                    &mut names.aspects
                }
                AssetType::Card => &mut names.cards,
                _ => continue,
            };
            // The original finds the first asset of that name; assets are in path order.
            map.entry(asset.name.clone()).or_insert_with(|| asset.id.clone());
        }
        names
    }
}

/// What became of one `[KEY]` of a text.
#[derive(Debug, PartialEq, Eq)]
enum KeyNote {
    /// No aspect or card has this name: the original shows 0.
    Unknown(String),
    /// The key became a card id that is also an aspect id (Actforge counts the aspect).
    Shadowed(String),
}

/// Rewrites every `[NAME]` and `{[NAME OP N] …}` key naming an aspect or card (by `m_Name`,
/// aspects first, as the original counts) to that item's id; `[MC]` and unknown keys stay.
fn rewrite_text_keys(text: &str, names: &TextNames) -> (String, Vec<KeyNote>) {
    let mut out = String::with_capacity(text.len());
    let mut notes = Vec::new();
    let mut rest = text;
    while let Some((before, after_open)) = rest.find('[').and_then(|open| rest.split_at_checked(open)) {
        out.push_str(before);
        let after = after_open.get(1..).unwrap_or_default();
        let close = after.find(']').filter(|close| after.find('\n').is_none_or(|line_end| line_end > *close));
        let Some((inner, after_close)) = close.and_then(|close| Some((after.get(..close)?, after.get(close + 1..)?)))
        else {
            out.push('[');
            rest = after;
            continue;
        };
        let conditional = if before.ends_with('{') { split_condition(inner) } else { None };
        let (name, tail) = conditional.unwrap_or((inner, ""));
        out.push('[');
        if name == "MC" && tail.is_empty() {
            out.push_str(name);
        } else if let Some(id) = names.aspects.get(name) {
            out.push_str(id);
        } else if let Some(id) = names.cards.get(name) {
            if names.aspect_ids.contains(id) {
                notes.push(KeyNote::Shadowed(name.to_owned()));
            }
            out.push_str(id);
        } else {
            notes.push(KeyNote::Unknown(name.to_owned()));
            out.push_str(name);
        }
        out.push_str(tail);
        out.push(']');
        rest = after_close;
    }
    out.push_str(rest);
    (out, notes)
}

/// `NAME OP N` (`Dark Calories >= 2`) split into the name and the rest (` >= 2`).
fn split_condition(inner: &str) -> Option<(&str, &str)> {
    let trimmed = inner.trim_end();
    let before_number = trimmed.trim_end_matches(|c: char| c.is_ascii_digit());
    if before_number.len() == trimmed.len() {
        return None;
    }
    let before_number = before_number.trim_end();
    let before_op = ["==", "!=", ">=", "<=", ">", "<"].iter().find_map(|op| before_number.strip_suffix(op))?;
    if !before_op.ends_with(char::is_whitespace) {
        return None;
    }
    let name = before_op.trim_end();
    if name.is_empty() {
        return None;
    }
    Some((name, inner.get(name.len()..)?))
}

// ---------------------------------------------------------------------------------------
// Reading one asset's fields.

/// A mapping's entries, remembering which were read (the rest are reported as unknown).
struct Fields<'a> {
    entries: &'a [(String, Node)],
    read: Vec<bool>,
    /// The field path of this mapping (`tests[0]`), empty at the top.
    prefix: String,
    at: Position,
}

impl<'a> Fields<'a> {
    fn new(node: &'a Node, prefix: String) -> Option<Self> {
        let entries = node.as_map()?;
        Some(Self { entries, read: vec![false; entries.len()], prefix, at: node.at })
    }

    fn get(&mut self, key: &str) -> Option<&'a Node> {
        let at = self.entries.iter().position(|(name, _)| name == key)?;
        if let Some(read) = self.read.get_mut(at) {
            *read = true;
        }
        self.entries.get(at).map(|(_, node)| node)
    }

    fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() { key.to_owned() } else { format!("{}.{key}", self.prefix) }
    }
}

/// What a reference points at.
enum Resolved<'a> {
    Null,
    Asset(&'a Asset),
    Texture(&'a Path),
    /// Already reported.
    Broken,
}

/// Reads one asset into its item, reporting into `diagnostics`.
struct Reader<'a, 'd> {
    folder: &'a Path,
    index: &'a Index,
    names: &'a TextNames,
    /// Acts whose `token` names no token: nothing can be spawned for them.
    tokenless_acts: &'a HashSet<String>,
    asset: &'a Asset,
    ticks_per_second: u32,
    diagnostics: &'d mut Vec<Diagnostic>,
    art: &'d mut BTreeSet<PathBuf>,
}

impl<'a> Reader<'a, '_> {
    fn report(&mut self, severity: Severity, at: Position, field: &str, message: impl Into<String>) {
        let asset = self.asset;
        self.diagnostics.push(
            Diagnostic::new(severity, message)
                .in_file(self.folder.join(&asset.relative))
                .at(Some(at))
                .for_item(asset.ty.kind(), &asset.id)
                .for_field(field),
        );
    }

    fn error(&mut self, at: Position, field: &str, message: impl Into<String>) {
        self.report(Severity::Error, at, field, message);
    }

    fn warning(&mut self, at: Position, field: &str, message: impl Into<String>) {
        self.report(Severity::Warning, at, field, message);
    }

    fn note(&mut self, at: Position, field: &str, message: impl Into<String>) {
        self.report(Severity::Info, at, field, message);
    }

    /// Notes the keys nobody read (known stale keys and Unity bookkeeping are silent).
    fn finish(&mut self, fields: &Fields<'a>, stale: &[&str]) {
        for ((key, node), read) in fields.entries.iter().zip(&fields.read) {
            if *read || BOOKKEEPING.contains(&key.as_str()) || stale.contains(&key.as_str()) {
                continue;
            }
            self.note(node.at, &fields.path(key), "not a field the Cultistlike engine reads; ignored");
        }
    }

    // --- scalars -------------------------------------------------------------------------

    /// The non-empty scalar text of `key`, or `None` when it is missing or empty.
    fn scalar(&mut self, fields: &mut Fields<'a>, key: &str) -> Option<(&'a str, Position)> {
        let node = fields.get(key)?;
        match &node.value {
            Value::Scalar(text) if text.is_empty() => None,
            Value::Scalar(text) => Some((text, node.at)),
            Value::Seq(_) | Value::Map(_) => {
                self.warning(node.at, &fields.path(key), "expected a single value; read as the default");
                None
            }
        }
    }

    fn text(&mut self, fields: &mut Fields<'a>, key: &str) -> String {
        self.scalar(fields, key).map(|(text, _)| text.to_owned()).unwrap_or_default()
    }

    /// A text the original interpolates (act texts, token descriptions, rule texts).
    fn interpolated_text(&mut self, fields: &mut Fields<'a>, key: &str) -> String {
        let Some((text, at)) = self.scalar(fields, key) else { return String::new() };
        let (rewritten, notes) = rewrite_text_keys(text, self.names);
        for note in notes {
            match note {
                KeyNote::Unknown(name) => self.note(
                    at,
                    &fields.path(key),
                    format!("`[{name}]` names no aspect or card, so the original shows 0 there; kept as written"),
                ),
                KeyNote::Shadowed(name) => self.warning(
                    at,
                    &fields.path(key),
                    format!("`[{name}]` is a card, but its id is also an aspect's, which the engine counts first when present"),
                ),
            }
        }
        rewritten
    }

    fn flag(&mut self, fields: &mut Fields<'a>, key: &str) -> bool {
        let Some((text, at)) = self.scalar(fields, key) else { return false };
        match text {
            "0" | "false" | "False" => false,
            "1" | "true" | "True" => true,
            other => {
                self.warning(at, &fields.path(key), format!("`{other}` is not a boolean (0 or 1); read as 0"));
                false
            }
        }
    }

    /// An integer and where it is written (`None` when missing: the default 0).
    fn int_at(&mut self, fields: &mut Fields<'a>, key: &str) -> Option<(i64, Position)> {
        let (text, at) = self.scalar(fields, key)?;
        if let Ok(value) = text.parse::<i64>() {
            return Some((value, at));
        }
        match text.parse::<f64>() {
            Ok(value) if value.fract() == 0.0 && value.abs() < 9.0e15 => Some((value as i64, at)),
            _ => {
                self.warning(at, &fields.path(key), format!("`{text}` is not an integer; read as 0"));
                Some((0, at))
            }
        }
    }

    fn int(&mut self, fields: &mut Fields<'a>, key: &str) -> i64 {
        self.int_at(fields, key).map_or(0, |(value, _)| value)
    }

    fn float_at(&mut self, fields: &mut Fields<'a>, key: &str) -> Option<(f64, Position)> {
        let (text, at) = self.scalar(fields, key)?;
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => Some((value, at)),
            _ => {
                self.warning(at, &fields.path(key), format!("`{text}` is not a finite number; read as 0"));
                Some((0.0, at))
            }
        }
    }

    /// Seconds of game time as ticks.
    fn ticks(&mut self, fields: &mut Fields<'a>, key: &str) -> Expr {
        let Some((seconds, at)) = self.float_at(fields, key) else { return Expr::int(0) };
        if seconds < 0.0 {
            self.warning(at, &fields.path(key), format!("{seconds} s is negative; read as 0"));
            return Expr::int(0);
        }
        let exact = seconds * f64::from(self.ticks_per_second);
        let ticks = exact.round();
        if (ticks - exact).abs() > 1e-6 {
            self.note(
                at,
                &fields.path(key),
                format!("{seconds} s is rounded to {ticks} ticks ({} per second)", self.ticks_per_second),
            );
        }
        Expr::int(ticks as i64)
    }

    fn colour(&mut self, fields: &mut Fields<'a>, key: &str) -> Colour {
        let path = fields.path(key);
        let Some(node) = fields.get(key) else { return Colour::default() };
        let Some(mut channels) = Fields::new(node, path.clone()) else {
            if node.as_str() != Some("") {
                self.warning(node.at, &path, "expected a colour `{r: …, g: …, b: …, a: …}`; read as transparent");
            }
            return Colour::default();
        };
        let mut channel = |name: &str| self.float_at(&mut channels, name).map_or(0.0, |(value, _)| value) as f32;
        let (r, g, b, a) = (channel("r"), channel("g"), channel("b"), channel("a"));
        Colour::from_unit_floats(r, g, b, a)
    }

    /// An enum value by its integer (the default for a missing key), or the unknown number.
    fn choice<T: Copy + Default>(
        &mut self,
        fields: &mut Fields<'a>,
        key: &str,
        table: &[(i64, T)],
    ) -> Result<T, (i64, Position)> {
        let Some((value, at)) = self.int_at(fields, key) else { return Ok(T::default()) };
        table.iter().find(|(number, _)| *number == value).map(|(_, choice)| *choice).ok_or((value, at))
    }

    fn location(&mut self, fields: &mut Fields<'a>, key: &str) -> Location {
        const LOCATIONS: &[(i64, Location)] = &[
            (0, Location::Scope),
            (4, Location::Slots),
            (8, Location::Heap),
            (16, Location::Table),
            (32, Location::MatchedCards),
            (64, Location::Anywhere),
            (128, Location::Free),
        ];
        self.choice(fields, key, LOCATIONS).unwrap_or_else(|(value, at)| {
            self.warning(at, &fields.path(key), format!("{value} is not a location the original knows; read as Scope"));
            Location::Scope
        })
    }

    // --- references ------------------------------------------------------------------------

    fn resolve(&mut self, node: &'a Node, path: &str) -> Resolved<'a> {
        if node.as_str() == Some("") {
            return Resolved::Null;
        }
        let Some(file_id) = node.get("fileID").and_then(Node::as_str) else {
            self.warning(node.at, path, "expected a reference `{fileID: …}`; read as none");
            return Resolved::Broken;
        };
        let guid = node.get("guid").and_then(Node::as_str).filter(|guid| !guid.is_empty());
        if file_id == "0" {
            return Resolved::Null;
        }
        let Some(guid) = guid.map(str::to_ascii_lowercase) else {
            if file_id == MAIN_OBJECT {
                return Resolved::Asset(self.asset);
            }
            self.warning(
                node.at,
                path,
                format!("refers to object {file_id} of this same file, which has no such object; read as none"),
            );
            return Resolved::Broken;
        };
        let index = self.index;
        match index.by_guid.get(&guid) {
            Some(Target::Asset(at)) => match index.assets.get(*at) {
                Some(asset) => Resolved::Asset(asset),
                None => Resolved::Broken,
            },
            Some(Target::Texture(picture)) => Resolved::Texture(picture),
            Some(Target::Skipped(file)) => {
                let file = slash_path(file);
                self.error(
                    node.at,
                    path,
                    format!("refers to {file}, which did not import (see its diagnostics); dropped"),
                );
                Resolved::Broken
            }
            Some(Target::Script(name)) => {
                self.error(node.at, path, format!("the GUID {guid} is the script {name}.cs, not an asset; dropped"));
                Resolved::Broken
            }
            Some(Target::Other(file)) => {
                let file = slash_path(file);
                self.error(node.at, path, format!("refers to {file}, which is not a Cultistlike asset; dropped"));
                Resolved::Broken
            }
            None => {
                self.error(
                    node.at,
                    path,
                    format!("no file has the GUID {guid} (no .meta in the folder names it); the reference is dropped"),
                );
                Resolved::Broken
            }
        }
    }

    fn is_null(node: &Node) -> bool {
        node.as_str() == Some("") || node.get("fileID").and_then(Node::as_str) == Some("0")
    }

    /// What an asset is, for messages: "the card `Kitten` (Resources/Cards/Kitten.asset)".
    fn describe(asset: &Asset) -> String {
        format!("{} `{}` ({})", asset.ty.kind().label().to_lowercase(), asset.name, slash_path(&asset.relative))
    }

    fn fragment_of(&mut self, node: &'a Node, path: &str) -> Option<FragmentRef> {
        match self.resolve(node, path) {
            Resolved::Null | Resolved::Broken => None,
            Resolved::Asset(asset) => match (asset.special, asset.ty) {
                (Some(Special::UiOnly), _) => {
                    self.warning(
                        node.at,
                        path,
                        format!("`{}` is only an icon of the original's interface, not content; dropped", asset.name),
                    );
                    None
                }
                (Some(special), _) => special.fragment(),
                (None, AssetType::Aspect) => Some(FragmentRef::Aspect(Id::new(asset.id.clone()))),
                (None, AssetType::Card) => Some(FragmentRef::Card(Id::new(asset.id.clone()))),
                (None, _) => {
                    self.error(
                        node.at,
                        path,
                        format!("{} is not a fragment (an aspect or a card); dropped", Self::describe(asset)),
                    );
                    None
                }
            },
            Resolved::Texture(picture) => {
                let picture = slash_path(picture);
                self.error(node.at, path, format!("a picture ({picture}) where a fragment belongs; dropped"));
                None
            }
        }
    }

    fn fragment(&mut self, fields: &mut Fields<'a>, key: &str) -> Option<FragmentRef> {
        let node = fields.get(key)?;
        self.fragment_of(node, &fields.path(key))
    }

    fn id_of<T>(&mut self, node: &'a Node, path: &str, ty: AssetType) -> Option<Id<T>> {
        match self.resolve(node, path) {
            Resolved::Null | Resolved::Broken => None,
            Resolved::Asset(asset) if asset.special.is_none() && asset.ty == ty => Some(Id::new(asset.id.clone())),
            Resolved::Asset(asset) if asset.special.is_some() => {
                // Valid in the original (the placeholder is an ordinary asset there), but here it
                // only exists as a fragment reference.
                let message = format!(
                    "the special fragment `{}` cannot stand for {} here; dropped",
                    asset.name,
                    ty.with_article()
                );
                self.warning(node.at, path, message);
                None
            }
            Resolved::Asset(asset) => {
                let message = format!("{} is not {}; dropped", Self::describe(asset), ty.with_article());
                self.error(node.at, path, message);
                None
            }
            Resolved::Texture(picture) => {
                let picture = slash_path(picture);
                self.error(
                    node.at,
                    path,
                    format!("a picture ({picture}) where {} belongs; dropped", ty.with_article()),
                );
                None
            }
        }
    }

    fn id<T>(&mut self, fields: &mut Fields<'a>, key: &str, ty: AssetType) -> Option<Id<T>> {
        let node = fields.get(key)?;
        self.id_of(node, &fields.path(key), ty)
    }

    fn art(&mut self, fields: &mut Fields<'a>, key: &str) -> Option<String> {
        let path = fields.path(key);
        let node = fields.get(key)?;
        match self.resolve(node, &path) {
            Resolved::Null | Resolved::Broken => None,
            Resolved::Texture(picture) => {
                if self.folder.join(picture).is_file() {
                    self.art.insert(picture.to_owned());
                    Some(slash_path(picture))
                } else {
                    let picture = slash_path(picture);
                    self.warning(node.at, &path, format!("the picture {picture} is not in the folder; no art"));
                    None
                }
            }
            Resolved::Asset(asset) => {
                self.warning(node.at, &path, format!("{} is not a picture; no art", Self::describe(asset)));
                None
            }
        }
    }

    // --- lists -----------------------------------------------------------------------------

    fn list(&mut self, fields: &mut Fields<'a>, key: &str) -> &'a [Node] {
        let Some(node) = fields.get(key) else { return &[] };
        match &node.value {
            Value::Seq(items) => items,
            Value::Scalar(text) if text.is_empty() => &[],
            Value::Scalar(_) | Value::Map(_) => {
                self.warning(node.at, &fields.path(key), "expected a list; read as empty");
                &[]
            }
        }
    }

    /// A list of references of one type; null entries are skipped (as the original does).
    fn ids<T>(&mut self, fields: &mut Fields<'a>, key: &str, ty: AssetType) -> Vec<Id<T>> {
        let path = fields.path(key);
        let nodes = self.list(fields, key);
        self.ids_in(nodes, &path, ty)
    }

    fn ids_in<T>(&mut self, nodes: &'a [Node], path: &str, ty: AssetType) -> Vec<Id<T>> {
        nodes.iter().enumerate().filter_map(|(at, node)| self.id_of(node, &format!("{path}[{at}]"), ty)).collect()
    }

    /// A `slots` list: the original fails on an empty entry there, so each is noted.
    fn slot_ids(&mut self, fields: &mut Fields<'a>) -> Vec<Id<Slot>> {
        let nodes = self.list(fields, "slots");
        for (at, node) in nodes.iter().enumerate().filter(|(_, node)| Self::is_null(node)) {
            let path = fields.path("slots");
            self.note(node.at, &format!("{path}[{at}]"), "an empty entry, which the original fails on; skipped");
        }
        self.ids_in(nodes, &fields.path("slots"), AssetType::Slot)
    }

    fn fragments(&mut self, fields: &mut Fields<'a>, key: &str) -> Vec<FragmentRef> {
        let path = fields.path(key);
        let nodes = self.list(fields, key);
        nodes.iter().enumerate().filter_map(|(at, node)| self.fragment_of(node, &format!("{path}[{at}]"))).collect()
    }

    /// A fragment list with repeats folded into counts, in first-occurrence order.
    fn fragment_counts(&mut self, fields: &mut Fields<'a>, key: &str) -> Vec<FragmentCount> {
        let at = fields.get(key).map_or(fields.at, |node| node.at);
        let path = fields.path(key);
        let (counts, reordered) = fold_counts(self.fragments(fields, key));
        if reordered {
            self.note(at, &path, "repeated entries are folded into counts, which puts them next to each other");
        }
        counts
    }

    /// `required`, `essential` or `forbidden` of a slot.
    fn held_fragments(&mut self, fields: &mut Fields<'a>, key: &str) -> Vec<FragmentCount> {
        let path = fields.path(key);
        let mut held = Vec::new();
        for (at, node) in self.list(fields, key).iter().enumerate() {
            let Some(mut entry) = Fields::new(node, format!("{path}[{at}]")) else {
                self.warning(node.at, &format!("{path}[{at}]"), "expected `{fragment: …, count: …}`; dropped");
                continue;
            };
            let null = entry.get("fragment").is_none_or(Self::is_null);
            let fragment = self.fragment(&mut entry, "fragment");
            let count = match self.int_at(&mut entry, "count") {
                Some((count, at)) if count < 0 => {
                    // Held counts are never negative, so `≥ -n` and `< -n` read the same as with 0.
                    self.note(at, &entry.path("count"), format!("{count} is read as 0, which means the same here"));
                    0
                }
                Some((count, _)) => count,
                None => 0,
            };
            self.finish(&entry, &["cardViz"]);
            match fragment {
                Some(fragment) => held.push(FragmentCount::new(fragment, count)),
                None if null => self.warning(
                    node.at,
                    &entry.prefix,
                    "an entry without a fragment is dropped; the original counts it as 0 held (check what the slot accepts)",
                ),
                None => {}
            }
        }
        held
    }

    fn tests(&mut self, fields: &mut Fields<'a>, key: &str) -> Vec<Test> {
        let path = fields.path(key);
        let mut tests = Vec::new();
        for (at, node) in self.list(fields, key).iter().enumerate() {
            let Some(mut entry) = Fields::new(node, format!("{path}[{at}]")) else {
                self.warning(node.at, &format!("{path}[{at}]"), "expected a test; dropped");
                continue;
            };
            tests.push(self.test(&mut entry));
            self.finish(&entry, &[]);
        }
        tests
    }

    fn test(&mut self, fields: &mut Fields<'a>) -> Test {
        const OPS: &[(i64, TestOp)] = &[
            (0, TestOp::MoreOrEqual),
            (1, TestOp::Equal),
            (2, TestOp::LessOrEqual),
            (3, TestOp::More),
            (4, TestOp::NotEqual),
            (5, TestOp::Less),
            (6, TestOp::Mod),
            (10, TestOp::RandomChallenge),
            (20, TestOp::RandomClash),
        ];
        let mut test = Test {
            card_test: self.flag(fields, "cardTest"),
            can_fail: self.flag(fields, "canFail"),
            loc1: self.location(fields, "loc1"),
            fragment1: self.fragment(fields, "fragment1"),
            op: TestOp::default(),
            constant: Expr::int(self.int(fields, "constant")),
            loc2: self.location(fields, "loc2"),
            fragment2: self.fragment(fields, "fragment2"),
        };
        match self.choice(fields, "op", OPS) {
            Ok(TestOp::Mod) if test.fragment2.is_none() && test.constant.is_zero() => {
                let at = fields.get("op").map_or(fields.at, |node| node.at);
                self.warning(
                    at,
                    &fields.path("op"),
                    "`Mod` by a constant 0 is a division error in the original; imported as `0 < 0`, which fails",
                );
                test = Test { can_fail: test.can_fail, op: TestOp::Less, ..Test::default() };
            }
            Ok(op) => test.op = op,
            Err((value, at)) => {
                // The original fails a test with an unknown op; `0 < 0` fails the same way.
                self.warning(
                    at,
                    &fields.path("op"),
                    format!("{value} is no comparison, so the original always fails this test; imported as `0 < 0`"),
                );
                test = Test { can_fail: test.can_fail, op: TestOp::Less, ..Test::default() };
            }
        }
        test
    }

    fn requirements(&mut self, fields: &mut Fields<'a>) -> Requirements {
        let tests = self.tests(fields, "tests");
        let and = self.ids(fields, "and", AssetType::Rule);
        let or_at = fields.get("or").map_or(fields.at, |node| node.at);
        let written = self.list(fields, "or");
        let or = self.ids_in(written, &fields.path("or"), AssetType::Rule);
        if !written.is_empty() && or.is_empty() {
            self.warning(
                or_at,
                &fields.path("or"),
                "holds no rule, only empty entries: the original then always fails here (the list is not empty), \
                 Actforge reads an empty `or` as no requirement",
            );
        }
        Requirements { tests, condition: None, and, or }
    }

    /// The entries of a modifier list, as field readers.
    fn entries(&mut self, fields: &mut Fields<'a>, key: &str) -> Vec<Fields<'a>> {
        let path = fields.path(key);
        let mut entries = Vec::new();
        for (at, node) in self.list(fields, key).iter().enumerate() {
            match Fields::new(node, format!("{path}[{at}]")) {
                Some(entry) => entries.push(entry),
                None => self.warning(node.at, &format!("{path}[{at}]"), "expected a mapping; dropped"),
            }
        }
        entries
    }

    /// Reports a modifier dropped because the original ignores its op.
    /// The op read, or none (with a note) when the original has no such op.
    fn known_op<T>(&mut self, fields: &Fields<'a>, op: Result<T, (i64, Position)>) -> Option<T> {
        op.map_err(|(value, at)| {
            self.note(
                at,
                &fields.path("op"),
                format!("the original does nothing for op {value}; the modifier is dropped"),
            );
        })
        .ok()
    }

    /// Each entry of the list `key`, read by `read`; entries it drops are left out.
    fn modifiers<T>(
        &mut self,
        fields: &mut Fields<'a>,
        key: &str,
        read: fn(&mut Self, &mut Fields<'a>) -> Option<T>,
    ) -> Vec<T> {
        let mut read_entries = Vec::new();
        for mut entry in self.entries(fields, key) {
            read_entries.extend(read(self, &mut entry));
            self.finish(&entry, &[]);
        }
        read_entries
    }

    fn effects(&mut self, fields: &mut Fields<'a>) -> Effects {
        let mut effects = Effects {
            act_modifiers: self.modifiers(fields, "actModifiers", Self::act_modifier),
            card_modifiers: self.modifiers(fields, "cardModifiers", Self::card_modifier),
            table_modifiers: self.modifiers(fields, "tableModifiers", Self::table_modifier),
            path_modifiers: self.modifiers(fields, "pathModifiers", Self::path_modifier),
            deck_modifiers: self.modifiers(fields, "deckModifiers", Self::deck_modifier),
            ..Effects::default()
        };
        effects.furthermore = self.ids(fields, "furthermore", AssetType::Rule);
        effects
    }

    fn act_modifier(&mut self, fields: &mut Fields<'a>) -> Option<ActModifier> {
        const OPS: &[(i64, ActOp)] = &[
            (0, ActOp::Adjust),
            (20, ActOp::Grab),
            (30, ActOp::Expulse),
            (40, ActOp::SetMemory),
            (50, ActOp::RunTriggers),
        ];
        let op = self.choice(fields, "op", OPS);
        let modifier = ActModifier {
            op: op.unwrap_or_default(),
            fragment: self.fragment(fields, "fragment"),
            level: Expr::int(self.int(fields, "level")),
            ref_loc: self.location(fields, "refLoc"),
            reference: self.fragment(fields, "reference"),
        };
        self.known_op(fields, op).map(|_| modifier)
    }

    fn card_modifier(&mut self, fields: &mut Fields<'a>) -> Option<CardModifier> {
        const OPS: &[(i64, CardOp)] = &[
            (0, CardOp::FragmentAdditive),
            (5, CardOp::FragmentSet),
            (10, CardOp::Transform),
            (100, CardOp::Decay),
            (140, CardOp::SetMemory),
            (150, CardOp::Spread),
        ];
        let op = self.choice(fields, "op", OPS);
        let target = self.fragment(fields, "target");
        let fragment = self.fragment(fields, "fragment");
        let level = self.int(fields, "level");
        // Decay's level is seconds in the original and ticks here.
        let level = if matches!(op, Ok(CardOp::Decay)) {
            level.saturating_mul(i64::from(self.ticks_per_second))
        } else {
            level
        };
        let modifier = CardModifier {
            op: op.unwrap_or_default(),
            target,
            fragment,
            level: Expr::int(level),
            reference: self.fragment(fields, "reference"),
        };
        self.known_op(fields, op).map(|_| modifier)
    }

    fn table_modifier(&mut self, fields: &mut Fields<'a>) -> Option<TableModifier> {
        const OPS: &[(i64, TableOp)] = &[(0, TableOp::SpawnAct), (10, TableOp::SpawnToken)];
        let op = self.choice(fields, "op", OPS);
        let act_at = fields.get("act").map_or(fields.at, |node| node.at);
        let act = self.id(fields, "act", AssetType::Act);
        let op = self.known_op(fields, op)?;
        let Some(act) = act else {
            self.note(act_at, &fields.path("act"), "a table modifier without an act does nothing; dropped");
            return None;
        };
        if self.tokenless_acts.contains(act.as_str()) {
            self.warning(
                act_at,
                &fields.path("act"),
                format!("the act `{act}` has no token, so there is no token type to spawn; dropped"),
            );
            return None;
        }
        Some(TableModifier { op, act })
    }

    fn path_modifier(&mut self, fields: &mut Fields<'a>) -> Option<PathModifier> {
        const OPS: &[(i64, PathOp)] = &[
            (0, PathOp::BranchOut),
            (20, PathOp::ForceAct),
            (40, PathOp::SetCallback),
            (41, PathOp::Callback),
            (80, PathOp::GameOver),
        ];
        let op = self.choice(fields, "op", OPS);
        let act = self.id(fields, "act", AssetType::Act);
        let op = self.known_op(fields, op)?;
        Some(PathModifier { op, act, text: String::new() })
    }

    fn deck_modifier(&mut self, fields: &mut Fields<'a>) -> Option<DeckModifier> {
        const OPS: &[(i64, DeckOp)] = &[
            (0, DeckOp::Draw),
            (10, DeckOp::DrawNext),
            (20, DeckOp::DrawPrevious),
            (50, DeckOp::Add),
            (51, DeckOp::AddFront),
            (100, DeckOp::ForwardShift),
        ];
        let op = self.choice(fields, "op", OPS);
        let modifier = DeckModifier {
            op: op.unwrap_or_default(),
            deck: self.id(fields, "deck", AssetType::Deck),
            deck_from: self.fragment(fields, "deckFrom"),
            fragment: self.fragment(fields, "fragment"),
        };
        self.known_op(fields, op).map(|_| modifier)
    }

    /// `altActs`, `nextActs` or `spawnedActs` (`spawned`: the acts need a token type).
    fn links(&mut self, fields: &mut Fields<'a>, key: &str, spawned: bool) -> Vec<ActLink> {
        let list_at = fields.get(key).map_or(fields.at, |node| node.at);
        let path = fields.path(key);
        let entries = self.entries(fields, key);
        let written = entries.len();
        let mut links = Vec::new();
        for mut entry in entries {
            let chance = self.int_at(&mut entry, "chance");
            let act_at = entry.get("act").map_or(entry.at, |node| node.at);
            let act = self.id(&mut entry, "act", AssetType::Act);
            let rule = self.id(&mut entry, "actRule", AssetType::Rule);
            self.finish(&entry, &[]);
            let Some(act) = act else { continue };
            let chance = match chance {
                Some((chance, at)) if chance < 0 && rule.is_none() => {
                    self.warning(at, &entry.path("chance"), format!("a chance of {chance} % is never taken; dropped"));
                    continue;
                }
                // Above 100 % is always, like 100 %; with a rule the chance is not used.
                Some((chance, _)) => chance.clamp(0, 100),
                None => 0,
            };
            if spawned && self.tokenless_acts.contains(act.as_str()) {
                self.warning(
                    act_at,
                    &entry.path("act"),
                    format!("the act `{act}` has no token, so no token can be spawned to run it; dropped"),
                );
                continue;
            }
            links.push(ActLink { act, chance: Expr::int(chance), rule });
        }
        let single_unconditional = matches!(links.as_slice(), [link] if link.chance.is_zero() && link.rule.is_none());
        if written > 1 && single_unconditional {
            self.warning(
                list_at,
                &path,
                "only one link has an act: with chance 0 and no rule the original never took it (it was one of \
                 several), but a single such link is always taken",
            );
        }
        links
    }

    // --- items -----------------------------------------------------------------------------

    fn convert(&mut self, project: &mut Project) {
        let asset = self.asset;
        let Some(mut fields) = Fields::new(&asset.body, String::new()) else { return };
        match asset.ty {
            AssetType::Aspect => {
                let item = self.aspect(&mut fields);
                project.aspects.insert(item);
                self.finish(&fields, &["oneForAll"]);
            }
            AssetType::Card => {
                let item = self.card(&mut fields);
                project.cards.insert(item);
                self.finish(&fields, &["oneForAll"]);
            }
            AssetType::Deck => {
                let item = self.deck(&mut fields);
                project.decks.insert(item);
                self.finish(&fields, &["tagOnFragment"]);
            }
            AssetType::Slot => {
                let item = self.slot(&mut fields);
                project.slots.insert(item);
                self.finish(&fields, &["spawnRules", "cardTests", "cardRules", "onlyMatching"]);
            }
            AssetType::Rule => {
                let item = self.rule(&mut fields);
                project.rules.insert(item);
                self.finish(&fields, &[]);
            }
            AssetType::Act => {
                let item = self.act(&mut fields);
                project.acts.insert(item);
                self.finish(&fields, &[]);
            }
            AssetType::Token => {
                let item = self.token(&mut fields);
                project.tokens.insert(item);
                self.finish(&fields, &[]);
            }
        }
    }

    fn aspect(&mut self, fields: &mut Fields<'a>) -> Aspect {
        let aspect = Aspect {
            text_key: String::new(),
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            description: self.text(fields, "description"),
            colour: self.colour(fields, "color"),
            art: self.art(fields, "art"),
            hidden: self.flag(fields, "hidden"),
            rules: self.ids(fields, "rules", AssetType::Rule),
            slots: self.slot_ids(fields),
            deck: self.id(fields, "deck", AssetType::Deck),
        };
        let fragments_at = fields.get("fragments").map_or(fields.at, |node| node.at);
        if !self.list(fields, "fragments").is_empty() {
            self.note(fragments_at, "fragments", "the original never reads an aspect's fragments; dropped");
        }
        aspect
    }

    fn card(&mut self, fields: &mut Fields<'a>) -> Card {
        Card {
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            description: self.text(fields, "description"),
            colour: self.colour(fields, "color"),
            art: self.art(fields, "art"),
            hidden: self.flag(fields, "hidden"),
            fragments: self.fragment_counts(fields, "fragments"),
            rules: self.ids(fields, "rules", AssetType::Rule),
            slots: self.slot_ids(fields),
            deck: self.id(fields, "deck", AssetType::Deck),
            decay_to: self.id(fields, "decayTo", AssetType::Card),
            lifetime_ticks: self.ticks(fields, "lifetime"),
            on_decay_complete: self.id(fields, "onDecayComplete", AssetType::Rule),
            on_decay_into: self.id(fields, "onDecayInto", AssetType::Rule),
            unique: self.flag(fields, "unique"),
            memory_from_first: self.flag(fields, "memoryFromFirst"),
            ..Card::default()
        }
    }

    fn deck(&mut self, fields: &mut Fields<'a>) -> Deck {
        let path = fields.path("fragments");
        let mut cards = Vec::new();
        for (at, node) in self.list(fields, "fragments").iter().enumerate() {
            let entry = format!("{path}[{at}]");
            if Self::is_null(node) {
                self.warning(node.at, &entry, "an empty deck entry (the original draws nothing for it) is dropped");
            } else if let Some(card) = self.id_of(node, &entry, AssetType::Card) {
                cards.push(card);
            }
        }
        let shuffle = self.flag(fields, "shuffle");
        Deck {
            text_key: String::new(),
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            text: self.text(fields, "text"),
            fragments: cards,
            default_fragment: self.id(fields, "defaultFragment", AssetType::Card),
            tag_on: self.fragments(fields, "tagOn"),
            memory_fragment: self.fragment(fields, "memoryFragment"),
            shuffle,
            // The original's insertion shuffle draws the first listed entry last (D6).
            shuffle_mode: if shuffle { ShuffleMode::Insertion } else { ShuffleMode::Uniform },
            replenish: self.flag(fields, "replenish"),
            infinite: self.flag(fields, "infinite"),
            random: self.flag(fields, "random"),
        }
    }

    fn slot(&mut self, fields: &mut Fields<'a>) -> Slot {
        let mut slot = Slot {
            text_key: String::new(),
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            description: self.text(fields, "description"),
            fragments: self.fragment_counts(fields, "fragments"),
            token: self.id(fields, "token", AssetType::Token),
            unique: self.flag(fields, "unique"),
            all_tokens: self.flag(fields, "allTokens"),
            all_acts: self.flag(fields, "allActs"),
            spawn_tests: self.tests(fields, "spawnTests"),
            spawn_rule: self.id(fields, "spawnRule", AssetType::Rule),
            required: self.held_fragments(fields, "required"),
            essential: self.held_fragments(fields, "essential"),
            forbidden: self.held_fragments(fields, "forbidden"),
            card_rule: self.id(fields, "cardRule", AssetType::Rule),
            accept_all: self.flag(fields, "acceptAll"),
            grab: self.flag(fields, "grab"),
            card_lock: self.flag(fields, "cardLock"),
            act_grab: self.flag(fields, "actGrab"),
        };
        if !self.asset.in_resources && (slot.token.is_some() || slot.all_tokens || slot.all_acts) {
            self.warning(
                fields.at,
                "token",
                "the original offers global slots only from Resources folders; this one is not global here",
            );
            slot.token = None;
            slot.all_tokens = false;
            slot.all_acts = false;
        }
        slot
    }

    fn rule(&mut self, fields: &mut Fields<'a>) -> Rule {
        Rule {
            id: Id::new(self.asset.id.clone()),
            // Rules have no label of their own; the asset name is what the designer called it.
            label: self.asset.name.clone(),
            invert: self.flag(fields, "invert"),
            requirements: self.requirements(fields),
            effects: self.effects(fields),
            text: self.interpolated_text(fields, "text"),
            ..Rule::default()
        }
    }

    fn act(&mut self, fields: &mut Fields<'a>) -> Act {
        let initial_at = fields.get("initial").map_or(fields.at, |node| node.at);
        let mut act = Act {
            text_key: String::new(),
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            token: self.id(fields, "token", AssetType::Token),
            initial: self.flag(fields, "initial"),
            duration_ticks: self.ticks(fields, "time"),
            requirements: self.requirements(fields),
            fragments: self.fragment_counts(fields, "fragments"),
            effects: self.effects(fields),
            ignore_global_slots: self.flag(fields, "ignoreGlobalSlots"),
            slots: self.slot_ids(fields),
            random_alt: self.flag(fields, "randomAlt"),
            alt_acts: self.links(fields, "altActs", false),
            random_next: self.flag(fields, "randomNext"),
            next_acts: self.links(fields, "nextActs", false),
            spawned_acts: self.links(fields, "spawnedActs", true),
            on_spawn: self.id(fields, "onSpawn", AssetType::Rule),
            text: self.interpolated_text(fields, "text"),
            text_rules: self.ids(fields, "textRules", AssetType::Rule),
            end_text: self.interpolated_text(fields, "endText"),
            end_text_rules: self.ids(fields, "endTextRules", AssetType::Rule),
        };
        if act.initial && act.token.is_none() {
            self.warning(
                initial_at,
                "initial",
                "an initial act without a token can never be started; not initial here",
            );
            act.initial = false;
        }
        if act.initial && !self.asset.in_resources {
            self.warning(
                initial_at,
                "initial",
                "the original finds initial acts only in Resources folders; this act is not initial here",
            );
            act.initial = false;
        }
        act
    }

    fn token(&mut self, fields: &mut Fields<'a>) -> Token {
        Token {
            id: Id::new(self.asset.id.clone()),
            label: self.text(fields, "label"),
            description: self.interpolated_text(fields, "description"),
            colour: self.colour(fields, "color"),
            art: self.art(fields, "art"),
            text_rules: self.ids(fields, "textRules", AssetType::Rule),
            slot: self.id(fields, "slot", AssetType::Slot),
            dissolve: self.flag(fields, "dissolve"),
            unique: self.flag(fields, "unique"),
            // The original's stock window (spec §2.1); a Token asset has no capacity of its own.
            ..Token::default()
        }
    }
}

/// Folds repeated fragments into counts in first-occurrence order; also says whether a
/// repeat was not next to its first occurrence (folding then changes the order).
fn fold_counts(fragments: Vec<FragmentRef>) -> (Vec<FragmentCount>, bool) {
    let mut counts: Vec<(FragmentRef, i64)> = Vec::new();
    let mut reordered = false;
    for fragment in fragments {
        let last = counts.len().checked_sub(1);
        match counts.iter().position(|(seen, _)| *seen == fragment) {
            Some(at) => {
                reordered |= Some(at) != last;
                if let Some((_, count)) = counts.get_mut(at) {
                    *count += 1;
                }
            }
            None => counts.push((fragment, 1)),
        }
    }
    (counts.into_iter().map(|(fragment, count)| FragmentCount::new(fragment, count)).collect(), reordered)
}

// ---------------------------------------------------------------------------------------
// Whole-project checks.

/// C#'s ordinal string order (UTF-16 code units), which the original's name sort uses.
fn ordinal(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Actforge tries a token's initial acts in id order; the original in `m_Name` order. Warns
/// for each token where the two differ.
fn check_initial_order(folder: &Path, project: &Project, assets: &[Asset], diagnostics: &mut Vec<Diagnostic>) {
    let by_id: HashMap<&str, &Asset> = assets
        .iter()
        .filter(|asset| asset.special.is_none() && asset.ty == AssetType::Act)
        .map(|asset| (asset.id.as_str(), asset))
        .collect();
    let mut by_token: BTreeMap<&str, Vec<&Asset>> = BTreeMap::new();
    // `project.acts` iterates in id order.
    for act in project.acts.iter().filter(|act| act.initial) {
        if let (Some(token), Some(asset)) = (&act.token, by_id.get(act.id.as_str())) {
            by_token.entry(token.as_str()).or_default().push(asset);
        }
    }
    for (token, in_id_order) in by_token {
        let mut in_name_order = in_id_order.clone();
        in_name_order.sort_by(|a, b| ordinal(&a.name, &b.name).then_with(|| a.relative.cmp(&b.relative)));
        let same = in_id_order.iter().zip(&in_name_order).all(|(a, b)| std::ptr::eq(*a, *b));
        if same {
            continue;
        }
        let ids: Vec<&str> = in_id_order.iter().map(|asset| asset.id.as_str()).collect();
        let names: Vec<&str> = in_name_order.iter().map(|asset| asset.name.as_str()).collect();
        let first_moved =
            in_id_order.iter().zip(&in_name_order).find(|(a, b)| !std::ptr::eq(**a, **b)).map(|(a, _)| *a);
        let mut diagnostic = Diagnostic::warning(format!(
            "the initial acts of token `{token}` are tried in id order in Actforge ({}) but in name order in the \
             original ({}); rename the assets (e.g. with `00 `, `01 ` prefixes) so both orders agree",
            ids.join(", "),
            names.join(", ")
        ));
        if let Some(asset) = first_moved {
            diagnostic =
                diagnostic.in_file(folder.join(&asset.relative)).for_item(Kind::Act, &asset.id).for_field("initial");
        }
        diagnostics.push(diagnostic);
    }
}

/// The tokens and cards on the table at the start: from the options, or the known demo
/// scene whose token and card names the content has.
fn set_entry_points(
    project: &mut Project,
    assets: &[Asset],
    options: &CultistlikeOptions,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let content = |ty: AssetType| assets.iter().filter(move |asset| asset.special.is_none() && asset.ty == ty);
    let find = |ty: AssetType, name: &str| {
        content(ty)
            .find(|asset| asset.name == name)
            .or_else(|| content(ty).find(|asset| asset.id == name))
            .map(|asset| asset.id.clone())
    };
    if options.start_tokens.is_empty() && options.start_cards.is_empty() {
        for (scene, token, card) in KNOWN_SCENES {
            if let (Some(token_id), Some(card_id)) = (find(AssetType::Token, token), find(AssetType::Card, card)) {
                project.manifest.entry.tokens = vec![Id::new(token_id)];
                project.manifest.entry.cards = vec![Id::new(card_id)];
                diagnostics.push(Diagnostic::new(
                    Severity::Info,
                    format!(
                        "the game starts with token `{token}` and card `{card}` on the table, as in the {scene} scene \
                         (scenes are not part of the assets; choose others with --token and --card)"
                    ),
                ));
                return;
            }
        }
        diagnostics.push(Diagnostic::warning(
            "nothing is on the table at the start: scenes are not part of the assets; name the starting tokens \
             and cards with --token NAME and --card NAME",
        ));
        return;
    }
    for (names, ty) in [(&options.start_tokens, AssetType::Token), (&options.start_cards, AssetType::Card)] {
        for name in names {
            match find(ty, name) {
                Some(id) if ty == AssetType::Token => project.manifest.entry.tokens.push(Id::new(id)),
                Some(id) => project.manifest.entry.cards.push(Id::new(id)),
                None => {
                    let known: Vec<&str> = content(ty).map(|asset| asset.name.as_str()).collect();
                    diagnostics.push(Diagnostic::error(format!(
                        "no {} is named `{name}` (by asset name or id); the {} are: {}",
                        ty.kind().label().to_lowercase(),
                        ty.kind().plural_label().to_lowercase(),
                        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn names() -> TextNames {
        TextNames {
            aspects: HashMap::from([("Dark Calories".to_owned(), "dark_calories".to_owned())]),
            cards: HashMap::from([
                ("Kitten".to_owned(), "kitten".to_owned()),
                ("Dark Calories".to_owned(), "dark_calories".to_owned()),
            ]),
            aspect_ids: HashSet::from(["dark_calories".to_owned()]),
        }
    }

    #[test]
    fn text_keys_become_ids() {
        let (text, notes) = rewrite_text_keys("You have [Dark Calories] calories and [Kitten] cats.", &names());
        assert_eq!(text, "You have [dark_calories] calories and [kitten] cats.");
        assert!(notes.is_empty(), "{notes:?}");
        let (text, notes) = rewrite_text_keys("{[Dark Calories >= 2] Yum!}\n{[Kitten==1]x}[MC] [Foo]", &names());
        assert_eq!(text, "{[dark_calories >= 2] Yum!}\n{[Kitten==1]x}[MC] [Foo]");
        assert_eq!(notes, vec![KeyNote::Unknown("Kitten==1".to_owned()), KeyNote::Unknown("Foo".to_owned())]);
        let (text, _) = rewrite_text_keys("open [ and\n] close [Kitten", &names());
        assert_eq!(text, "open [ and\n] close [Kitten");
        let (text, _) = rewrite_text_keys("{[Kitten  <  3 ] small}", &names());
        assert_eq!(text, "{[kitten  <  3 ] small}");
    }

    #[test]
    fn conditions_split_at_the_operator() {
        assert_eq!(split_condition("Dark Calories >= 2"), Some(("Dark Calories", " >= 2")));
        assert_eq!(split_condition("A <5"), Some(("A", " <5")));
        assert_eq!(split_condition("A=5"), None);
        assert_eq!(split_condition("A >= x"), None);
        assert_eq!(split_condition(" >= 2"), None);
    }

    #[test]
    fn repeats_fold_in_first_occurrence_order() {
        let furry = FragmentRef::Aspect(Id::new("furry"));
        let purring = FragmentRef::Aspect(Id::new("purring"));
        let (counts, reordered) = fold_counts(vec![furry.clone(), furry.clone(), purring.clone()]);
        assert_eq!(counts, vec![FragmentCount::new(furry.clone(), 2), FragmentCount::new(purring.clone(), 1)]);
        assert!(!reordered);
        let (counts, reordered) = fold_counts(vec![furry.clone(), purring.clone(), furry.clone()]);
        assert_eq!(counts, vec![FragmentCount::new(furry, 2), FragmentCount::new(purring, 1)]);
        assert!(reordered);
    }

    #[test]
    fn ordinal_order_is_utf16() {
        assert_eq!(ordinal("00 Kitten", "01 Kitten"), Ordering::Less);
        assert_eq!(ordinal("Zebra", "apple"), Ordering::Less);
        assert_eq!(ordinal("\u{ffff}", "\u{10000}"), Ordering::Greater);
    }
}
