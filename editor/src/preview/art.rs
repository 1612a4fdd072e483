//! Card and aspect art for the preview: pictures named by `art` fields (relative to the project
//! folder), decoded and shrunk on a worker thread so a pack of large pictures never freezes the
//! frame, then kept as textures until the project folder changes.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use egui::{ColorImage, TextureHandle, TextureOptions};

/// The longest side of a picture as the preview keeps it (cards are drawn small).
const THUMBNAIL_PX: u32 = 160;

/// A picture's state.
enum Picture {
    /// Being read on a worker thread.
    Loading,
    /// Read and shrunk, not yet a texture.
    Decoded(ColorImage),
    /// Ready to draw.
    Ready(TextureHandle),
    /// Could not be read (the reason, shown on hover).
    Failed(String),
}

/// The pictures the preview has asked for, by their `art` path.
#[derive(Default)]
pub struct ArtCache {
    folder: Option<PathBuf>,
    pictures: Arc<Mutex<HashMap<String, Picture>>>,
}

impl std::fmt::Debug for ArtCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArtCache").field("folder", &self.folder).finish_non_exhaustive()
    }
}

/// What the preview can draw for an `art` path now.
pub enum Art {
    /// The picture.
    Ready(TextureHandle),
    /// Still being read.
    Loading,
    /// Not drawn, and why.
    Missing(String),
}

impl ArtCache {
    /// Reads pictures relative to `folder` from now on (forgets the pictures of another folder).
    pub fn set_folder(&mut self, folder: Option<&Path>) {
        if self.folder.as_deref() != folder {
            self.folder = folder.map(Path::to_owned);
            self.pictures = Arc::default();
        }
    }

    /// The picture at `relative` (starting to read it on the first call).
    pub fn get(&self, ctx: &egui::Context, relative: &str) -> Art {
        let Some(folder) = &self.folder else {
            return Art::Missing("a bundle has no project folder to read pictures from".to_owned());
        };
        let Ok(mut pictures) = self.pictures.lock() else { return Art::Missing("the picture cache failed".to_owned()) };
        match pictures.remove(relative) {
            Some(Picture::Decoded(image)) => {
                let texture = ctx.load_texture(format!("art:{relative}"), image, TextureOptions::LINEAR);
                pictures.insert(relative.to_owned(), Picture::Ready(texture.clone()));
                Art::Ready(texture)
            }
            Some(Picture::Ready(texture)) => {
                pictures.insert(relative.to_owned(), Picture::Ready(texture.clone()));
                Art::Ready(texture)
            }
            Some(Picture::Failed(why)) => {
                pictures.insert(relative.to_owned(), Picture::Failed(why.clone()));
                Art::Missing(why)
            }
            Some(Picture::Loading) => {
                pictures.insert(relative.to_owned(), Picture::Loading);
                Art::Loading
            }
            None => {
                pictures.insert(relative.to_owned(), Picture::Loading);
                let path = inside(folder, relative);
                let shared = Arc::clone(&self.pictures);
                let ctx = ctx.clone();
                let key = relative.to_owned();
                let spawned = std::thread::Builder::new().name("preview-art".to_owned()).spawn(move || {
                    let picture = match path {
                        Some(path) => decode(&path).map_or_else(Picture::Failed, Picture::Decoded),
                        None => Picture::Failed(format!("`{key}` is not a path inside the project folder")),
                    };
                    if let Ok(mut pictures) = shared.lock() {
                        pictures.insert(key, picture);
                    }
                    ctx.request_repaint();
                });
                if let Err(error) = spawned {
                    pictures.insert(relative.to_owned(), Picture::Failed(error.to_string()));
                }
                Art::Loading
            }
        }
    }
}

/// `relative` under `folder`, or none when it would leave the folder (`..`, an absolute path).
fn inside(folder: &Path, relative: &str) -> Option<PathBuf> {
    let relative = Path::new(relative);
    relative
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
        .then(|| folder.join(relative))
}

/// Reads a PNG and shrinks it to the preview's size.
fn decode(path: &Path) -> Result<ColorImage, String> {
    let bytes = std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map_err(|error| format!("{} is not a PNG picture that can be read: {error}", path.display()))?;
    let small = decoded.thumbnail(THUMBNAIL_PX, THUMBNAIL_PX).to_rgba8();
    let size = [small.width() as usize, small.height() as usize];
    Ok(ColorImage::from_rgba_unmultiplied(size, small.as_raw()))
}
