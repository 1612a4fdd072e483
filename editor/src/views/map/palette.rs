//! Palette pictures: importing a PNG (optionally sliced into tiles) into a map's palette (the
//! file is copied into the project's `textures/` folder and the entry names it by a
//! project-relative path) and the texture atlas the view draws with: every tile of every
//! entry scaled into one cell of a square atlas laid out as [`AtlasLayout::grid`] (flat-colour
//! entries and unpainted faces get a white cell, so their colour alone shows).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use actforge_runtime::map::AtlasLayout;
use actforge_runtime::model::{PaletteEntry, PaletteId, TileMap, Tileset, unique_slug};
use egui::{ColorImage, TextureHandle, TextureId};
use image::RgbaImage;

/// Where imported pictures go, relative to the project folder.
pub const TEXTURES_FOLDER: &str = "textures";
/// Largest atlas side in pixels: cells shrink past it (GPUs take 4096 everywhere).
const MAX_ATLAS_PX: u32 = 4096;
/// Pixels per atlas cell for small palettes.
const CELL_PX: u32 = 64;

/// Pixels per atlas cell for an atlas of `cells` tiles.
pub fn cell_px(cells: usize) -> u32 {
    let side = AtlasLayout::cells_per_side(cells).max(1) as u32;
    CELL_PX.min(MAX_ATLAS_PX / side).max(1)
}

/// Tiles per palette entry of `map`: `tiles` where known (the pictures' slicing), else 1.
pub fn tile_counts(map: &TileMap, tiles: &[usize]) -> Vec<usize> {
    (0..map.palette.len()).map(|at| tiles.get(at).copied().unwrap_or(1)).collect()
}

/// The atlas layout the view meshes `map` with, `tiles` tiles per entry (see [`tile_counts`]).
pub fn atlas_layout(map: &TileMap, tiles: &[usize]) -> AtlasLayout {
    let counts = tile_counts(map, tiles);
    AtlasLayout::grid(&counts, cell_px(counts.iter().sum()))
}

/// A new entry id for `label`, unique in `map`'s palette.
pub fn new_entry_id(map: &TileMap, label: &str) -> PaletteId {
    let taken = map.palette.iter().map(|entry| entry.id.as_str().to_owned()).collect();
    PaletteId::new(&unique_slug(label, &taken))
}

/// Reads a PNG picture (for the slicing preview).
pub fn read_png(path: &Path) -> Result<RgbaImage, PictureError> {
    let bytes = std::fs::read(path).map_err(|source| PictureError::Io { path: path.to_owned(), source })?;
    decode_png(path, &bytes)
}

/// Why a picture could not be imported or loaded.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a PNG picture that decodes.
    #[error("{path} is not a PNG picture that can be read: {reason}")]
    NotPng {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        reason: String,
    },
    /// No whole tile of the chosen size fits the picture.
    #[error("{path} cannot be sliced: {reason}")]
    Slicing {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The project has not been saved to a folder yet.
    #[error("save the project to a folder before importing pictures")]
    NoFolder,
}

fn decode_png(path: &Path, bytes: &[u8]) -> Result<RgbaImage, PictureError> {
    let decoded = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map_err(|error| PictureError::NotPng { path: path.to_owned(), reason: error.to_string() })?;
    Ok(decoded.to_rgba8())
}

/// Copies the PNG at `source` into `project_folder/textures/` (under a new name if a different
/// picture already has its name; a picture already inside the project is used where it is)
/// and returns a palette entry naming it, labelled after the file (its id is left empty: the
/// caller makes one unique in its map), sliced by `tileset` when given.
pub fn import_png(
    project_folder: &Path,
    source: &Path,
    tileset: Option<Tileset>,
) -> Result<PaletteEntry, PictureError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| PictureError::Io { path, source }
    };
    let bytes = std::fs::read(source).map_err(io(source))?;
    let picture = decode_png(source, &bytes)?;
    if let Some(tileset) = tileset
        && tileset.grid(picture.width(), picture.height()).tiles() == 0
    {
        let reason = tileset.problem(picture.width(), picture.height()).unwrap_or_default();
        return Err(PictureError::Slicing { path: source.to_owned(), reason });
    }
    let label = source.file_stem().map_or_else(|| "Picture".to_owned(), |stem| stem.to_string_lossy().into_owned());
    let entry = |relative: &Path| PaletteEntry {
        id: PaletteId::default(),
        label: label.clone(),
        image: Some(relative.to_string_lossy().replace('\\', "/")),
        tileset,
        // The default (transparent) colour means "no tint": the picture as it is.
        colour: actforge_runtime::model::Colour::default(),
        terrain: actforge_runtime::model::Terrain::default(),
    };
    if let (Ok(folder), Ok(file)) = (project_folder.canonicalize(), source.canonicalize())
        && let Ok(inside) = file.strip_prefix(&folder)
    {
        return Ok(entry(inside));
    }
    let extension = source.extension().map_or_else(|| "png".to_owned(), |e| e.to_string_lossy().to_lowercase());
    for attempt in 1..1000 {
        let name = if attempt == 1 { format!("{label}.{extension}") } else { format!("{label}-{attempt}.{extension}") };
        let relative = Path::new(TEXTURES_FOLDER).join(&name);
        let target = project_folder.join(&relative);
        match std::fs::read(&target) {
            Ok(existing) if existing == bytes => return Ok(entry(&relative)),
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                actforge_runtime::project::write_atomic(&target, &bytes).map_err(io(&target))?;
                return Ok(entry(&relative));
            }
            Err(error) => return Err(PictureError::Io { path: target, source: error }),
        }
    }
    Err(PictureError::Io {
        path: project_folder.join(TEXTURES_FOLDER),
        source: std::io::Error::other(format!("too many pictures named {label}")),
    })
}

/// A picture as last read from disk.
#[derive(Debug)]
struct Loaded {
    modified: Option<SystemTime>,
    picture: Result<Arc<RgbaImage>, String>,
}

fn load(path: &Path) -> Loaded {
    let modified = std::fs::metadata(path).and_then(|meta| meta.modified()).ok();
    let picture = std::fs::read(path)
        .map_err(|error| format!("{}: {error}", path.display()))
        .and_then(|bytes| decode_png(path, &bytes).map_err(|error| error.to_string()))
        .map(Arc::new);
    Loaded { modified, picture }
}

/// What the atlas was built from: the pictures in palette order (None: a flat colour), their
/// modification times and slicing.
type AtlasKey = Vec<Option<(PathBuf, Option<SystemTime>, Option<Tileset>)>>;

/// The palette atlas of the map on show, rebuilt when its pictures or their files change.
#[derive(Default)]
pub struct PaletteTextures {
    pictures: HashMap<PathBuf, Loaded>,
    key: Option<AtlasKey>,
    texture: Option<TextureHandle>,
    problems: Vec<String>,
    /// Tiles per palette entry, as the pictures slice.
    tiles: Vec<usize>,
    /// `ctx.input().time` of the last look at the files' modification times.
    checked_at: Option<f64>,
}

impl std::fmt::Debug for PaletteTextures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaletteTextures")
            .field("pictures", &self.pictures.len())
            .field("texture", &self.texture.as_ref().map(TextureHandle::id))
            .field("problems", &self.problems)
            .finish_non_exhaustive()
    }
}

/// Seconds between looks at the pictures' files, so a picture edited in a paint program shows.
const RECHECK_SECONDS: f64 = 1.0;

impl PaletteTextures {
    /// Brings the atlas up to date with `map`'s palette, reading pictures relative to `folder`.
    /// Returns the texture to draw with; None when no entry has a picture (faces are then
    /// drawn in flat colours, with no texture at all).
    pub fn sync(&mut self, ctx: &egui::Context, map: &TileMap, folder: Option<&Path>) -> Option<TextureId> {
        let now = ctx.input(|input| input.time);
        let recheck = self.checked_at.is_none_or(|at| now - at >= RECHECK_SECONDS || now < at);
        if recheck {
            self.checked_at = Some(now);
        }
        let mut key: AtlasKey = Vec::with_capacity(map.palette.len());
        for entry in &map.palette {
            let Some(relative) = entry.image.as_deref() else {
                key.push(None);
                continue;
            };
            let tileset = entry.tileset;
            let path = folder.map_or_else(|| PathBuf::from(relative), |folder| folder.join(relative));
            let stale = match self.pictures.get(&path) {
                None => true,
                Some(loaded) if recheck => {
                    std::fs::metadata(&path).and_then(|meta| meta.modified()).ok() != loaded.modified
                }
                Some(_) => false,
            };
            if stale {
                self.pictures.insert(path.clone(), load(&path));
            }
            let modified = self.pictures.get(&path).and_then(|loaded| loaded.modified);
            key.push(Some((path, modified, tileset)));
        }
        self.tiles = key.iter().map(|picture| self.tiles_of(picture.as_ref())).collect();
        if key.iter().all(Option::is_none) {
            self.key = Some(key);
            self.texture = None;
            self.problems.clear();
            return None;
        }
        if self.key.as_ref() != Some(&key) || self.texture.is_none() {
            let image = self.compose(&key);
            self.texture = Some(ctx.load_texture(
                "tile map palette atlas",
                image,
                // Nearest when magnified keeps pixel-art tiles crisp; no mipmaps, which
                // would blend neighbouring cells of the atlas.
                egui::TextureOptions { magnification: egui::TextureFilter::Nearest, ..egui::TextureOptions::LINEAR },
            ));
            self.key = Some(key);
        }
        self.texture.as_ref().map(TextureHandle::id)
    }

    /// Tiles per palette entry of the map last synced (a sheet that could not be read: 0).
    pub fn tile_counts(&self) -> &[usize] {
        &self.tiles
    }

    /// The size of a loaded picture, by its path relative to `folder`.
    pub fn picture_size(&self, folder: Option<&Path>, relative: &str) -> Option<(u32, u32)> {
        let path = folder.map_or_else(|| PathBuf::from(relative), |folder| folder.join(relative));
        match self.pictures.get(&path).map(|loaded| &loaded.picture) {
            Some(Ok(picture)) => Some(picture.dimensions()),
            _ => None,
        }
    }

    fn tiles_of(&self, picture: Option<&(PathBuf, Option<SystemTime>, Option<Tileset>)>) -> usize {
        match picture {
            None | Some((_, _, None)) => 1,
            Some((path, _, Some(tileset))) => match self.pictures.get(path).map(|loaded| &loaded.picture) {
                Some(Ok(picture)) => tileset.grid(picture.width(), picture.height()).tiles(),
                _ => 0,
            },
        }
    }

    /// Pictures that could not be read, one line each (empty when all loaded).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The atlas texture, when the palette has pictures.
    pub fn texture(&self) -> Option<TextureId> {
        self.texture.as_ref().map(TextureHandle::id)
    }

    /// The atlas image for `key`: each tile of each picture scaled into its cell, every other
    /// cell white.
    fn compose(&mut self, key: &AtlasKey) -> ColorImage {
        let counts: Vec<usize> = key.iter().map(|picture| self.tiles_of(picture.as_ref())).collect();
        let cells: usize = counts.iter().sum();
        let (side, cell) = (AtlasLayout::cells_per_side(cells) as u32, cell_px(cells));
        let mut atlas = RgbaImage::from_pixel(side * cell, side * cell, image::Rgba([255; 4]));
        self.problems.clear();
        let mut first = 0usize;
        for (at, (picture, count)) in key.iter().zip(&counts).enumerate() {
            let start = first;
            first += count;
            let Some((path, _, tileset)) = picture else { continue };
            let picture = match self.pictures.get(path).map(|loaded| &loaded.picture) {
                Some(Ok(picture)) => picture,
                Some(Err(problem)) => {
                    self.problems.push(format!("Palette entry {at}: {problem}"));
                    continue;
                }
                None => continue,
            };
            let (width, height) = picture.dimensions();
            if let Some(problem) = tileset.and_then(|tileset| tileset.problem(width, height)) {
                self.problems.push(format!("Palette entry {at}: {problem}"));
            }
            for tile in 0..*count {
                let rect = match tileset {
                    Some(tileset) => tileset.tile_rect(width, height, tile),
                    None => Some(actforge_runtime::model::PixelRect { x: 0, y: 0, width, height }),
                };
                let Some(rect) = rect else { continue };
                let piece = image::imageops::crop_imm(picture.as_ref(), rect.x, rect.y, rect.width, rect.height);
                let scaled =
                    image::imageops::resize(&piece.to_image(), cell, cell, image::imageops::FilterType::Triangle);
                let index = (start + tile) as u32;
                let (column, row) = (index % side, index / side);
                image::imageops::replace(&mut atlas, &scaled, i64::from(column * cell), i64::from(row * cell));
            }
        }
        let size = [atlas.width() as usize, atlas.height() as usize];
        ColorImage::from_rgba_unmultiplied(size, atlas.as_raw())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn write_png(path: &Path, colour: [u8; 4]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        RgbaImage::from_pixel(8, 8, image::Rgba(colour)).save(path).unwrap();
    }

    #[test]
    fn import_copies_into_textures_and_reuses_the_same_picture() {
        let (project, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let grass = outside.path().join("grass.png");
        write_png(&grass, [40, 160, 60, 255]);
        let entry = import_png(project.path(), &grass, None).unwrap();
        assert_eq!(entry.label, "grass");
        assert_eq!(entry.image.as_deref(), Some("textures/grass.png"));
        assert!(project.path().join("textures/grass.png").is_file());
        // The same picture again: the same file; a different picture of the same name: a new one.
        assert_eq!(import_png(project.path(), &grass, None).unwrap().image.as_deref(), Some("textures/grass.png"));
        write_png(&grass, [200, 10, 10, 255]);
        assert_eq!(import_png(project.path(), &grass, None).unwrap().image.as_deref(), Some("textures/grass-2.png"));
    }

    #[test]
    fn a_picture_inside_the_project_is_used_where_it_is() {
        let project = tempfile::tempdir().unwrap();
        let stone = project.path().join("art/stone.png");
        write_png(&stone, [128, 128, 128, 255]);
        assert_eq!(import_png(project.path(), &stone, None).unwrap().image.as_deref(), Some("art/stone.png"));
        assert!(!project.path().join(TEXTURES_FOLDER).exists());
    }

    #[test]
    fn a_file_that_is_not_a_png_is_refused_with_its_name() {
        let project = tempfile::tempdir().unwrap();
        let fake = project.path().join("notes.png");
        std::fs::write(&fake, "not a picture").unwrap();
        let error = import_png(project.path(), &fake, None).unwrap_err().to_string();
        assert!(error.contains("notes.png") && error.contains("not a PNG"), "{error}");
        let missing = import_png(project.path(), &project.path().join("gone.png"), None).unwrap_err().to_string();
        assert!(missing.contains("gone.png"), "{missing}");
    }

    #[test]
    fn the_atlas_puts_each_picture_in_its_cell_and_reports_broken_ones() {
        let project = tempfile::tempdir().unwrap();
        write_png(&project.path().join("textures/red.png"), [250, 0, 0, 255]);
        let mut map = TileMap::default();
        let picture = |path: &str| PaletteEntry { image: Some(path.to_owned()), ..PaletteEntry::default() };
        map.palette = vec![PaletteEntry::default(), picture("textures/red.png"), picture("textures/missing.png")];
        let ctx = egui::Context::default();
        let mut textures = PaletteTextures::default();
        let mut id = None;
        let mut output =
            ctx.run_ui(egui::RawInput::default(), |ui| id = textures.sync(ui.ctx(), &map, Some(project.path())));
        output.textures_delta.clear();
        assert!(id.is_some());
        assert_eq!(textures.problems().len(), 1);
        assert!(textures.problems()[0].contains("missing.png"), "{:?}", textures.problems());
        let key = textures.key.clone().unwrap();
        let image = textures.compose(&key);
        // Two cells per side (3 entries + unpainted); the red picture is cell 1 (top right).
        let cell = cell_px(3) as usize;
        assert_eq!(image.size, [2 * cell, 2 * cell]);
        let pixel = |x: usize, y: usize| image.pixels[y * image.size[0] + x];
        assert_eq!(pixel(cell + cell / 2, cell / 2), egui::Color32::from_rgb(250, 0, 0));
        assert_eq!(pixel(cell / 2, cell / 2), egui::Color32::WHITE);
        assert_eq!(pixel(cell / 2, cell + cell / 2), egui::Color32::WHITE);
        // Flat colours only: no texture.
        map.palette.truncate(1);
        let mut output =
            ctx.run_ui(egui::RawInput::default(), |ui| id = textures.sync(ui.ctx(), &map, Some(project.path())));
        output.textures_delta.clear();
        assert!(id.is_none());
    }
}
