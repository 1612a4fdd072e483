//! The tile-map editor: tool ops on a map, one undo step per stroke, picking through the
//! camera, and a kittest flow that paints a face and undoes it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // test code: a panic is a failed test

use std::path::Path;
use std::sync::Arc;

use actforge_editor::app::ActforgeApp;
use actforge_editor::commands::UiCommand;
use actforge_editor::document::{Document, History, ItemKey, Op, get_item};
use actforge_editor::views::map::camera::{Camera, Projection};
use actforge_editor::views::map::render::{FrameBuild, MapScene, Slicing};
use actforge_editor::views::map::tools::{self, Corner, TileRef};
use actforge_editor::views::map::{MapViewState, Overlays};
use actforge_runtime::map::Face;
use actforge_runtime::model::{Corners, Paint, PaletteEntry, Tile, TileMap};
use actforge_runtime::{Kind, Project};
use egui::{Pos2, Rect};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn flat_map(width: u16, depth: u16) -> TileMap {
    let mut map = TileMap { width, depth, ..TileMap::default() };
    for y in 0..depth {
        for x in 0..width {
            assert!(tools::add_tile(&mut map, x, y, 0));
        }
    }
    map
}

/// Paint with the palette entry `e{index}`, tile 0.
#[allow(clippy::unnecessary_wraps)] // the value a face holds, so tests read `paint_of(..) == p(1)`
fn p(index: u16) -> Option<Paint> {
    Some(Paint::new(format!("e{index}").as_str(), 0))
}

/// A palette of `count` flat entries `e0`, `e1`, …
fn entries(count: usize) -> Vec<PaletteEntry> {
    (0..count).map(|i| PaletteEntry { id: format!("e{i}").as_str().into(), ..PaletteEntry::default() }).collect()
}

fn at(cell_x: u16, cell_y: u16, z: u16) -> TileRef {
    TileRef { cell_x, cell_y, z }
}

#[test]
fn add_and_remove_keep_columns_sorted_and_refuse_overlaps() {
    let mut map = TileMap::default();
    assert!(tools::add_tile(&mut map, 3, 1, 2));
    assert!(tools::add_tile(&mut map, 0, 2, 0));
    assert!(tools::add_tile(&mut map, 3, 1, 0));
    assert!(!tools::add_tile(&mut map, 3, 1, 2), "the level is taken");
    assert!(!tools::add_tile(&mut map, 10, 0, 0), "outside the map");
    let cells: Vec<(u16, u16)> = map.columns.iter().map(|c| (c.x, c.y)).collect();
    assert_eq!(cells, [(3, 1), (0, 2)]);
    assert_eq!(tools::tiles_at(&map, 3, 1).iter().map(|t| t.z).collect::<Vec<_>>(), [0, 2]);
    // A tall tile covers the levels above its base: removing at level 1 of a 2-high tile removes it.
    assert!(tools::set_height(&mut map, at(0, 2, 0), 2));
    assert!(tools::remove_tile_at_level(&mut map, 0, 2, 1));
    assert!(tools::tiles_at(&map, 0, 2).is_empty());
    assert_eq!(map.columns.len(), 1, "an emptied column goes");
    assert!(tools::fill_rect(&mut map, (0, 0), (2, 1), 0, true));
    assert_eq!(map.columns.iter().map(|c| c.tiles.len()).sum::<usize>(), 8);
}

#[test]
fn reshape_makes_ramps_and_refuses_to_grow_into_the_tile_above() {
    let mut map = TileMap::default();
    tools::add_tile(&mut map, 0, 0, 0);
    tools::add_tile(&mut map, 0, 0, 2);
    assert!(tools::raise_corners(&mut map, at(0, 0, 0), Corner::of_side(Face::PosX), 1));
    let tile = tools::tile(&map, at(0, 0, 0)).unwrap();
    assert_eq!(tile.heights, Corners { x0y0: 1, x1y0: 2, x0y1: 1, x1y1: 2 }, "the +x edge rose: a ramp");
    assert!(!tools::raise_corners(&mut map, at(0, 0, 0), &[Corner::X1Y1], 1), "would reach into the tile at level 2");
    assert!(tools::raise_corners(&mut map, at(0, 0, 0), &[Corner::X1Y1], -1));
    assert_eq!(tools::tile(&map, at(0, 0, 0)).unwrap().heights.x1y1, 1);
    assert!(!tools::raise_corners(&mut map, at(0, 0, 2), &[Corner::X0Y0], -1), "heights stay at least 1");
    assert!(tools::set_inset(&mut map, at(0, 0, 2), Face::NegY, 0.25));
    assert!((tools::tile(&map, at(0, 0, 2)).unwrap().insets.neg_y - 0.25).abs() < 1e-6);
    assert!(tools::set_invisible(&mut map, at(0, 0, 2), true));
    assert!(tools::tile(&map, at(0, 0, 2)).unwrap().invisible);
}

#[test]
fn paint_flood_fill_and_eyedropper() {
    let mut map = flat_map(4, 3);
    // A wall splits the tops: (2, y) stands two levels higher.
    for y in 0..3 {
        tools::add_tile(&mut map, 2, y, 1);
        tools::add_tile(&mut map, 2, y, 2);
    }
    assert!(tools::paint_face(&mut map, at(0, 0, 0), Face::Top, p(3)));
    assert_eq!(tools::paint_of(&map, at(0, 0, 0), Face::Top), p(3));
    assert_eq!(tools::paint_of(&map, at(0, 0, 0), Face::NegX), None, "one face only");
    assert!(tools::flood_fill(&mut map, at(1, 1, 0), Face::Top, p(1)));
    let painted: Vec<(u16, u16)> =
        map.columns.iter().filter(|c| c.tiles[0].paint.top == p(1)).map(|c| (c.x, c.y)).collect();
    // (0, 0) was painted differently; the cells beyond the wall are not connected.
    assert_eq!(painted, [(1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]);
    assert!(tools::paint_tile(&mut map, at(3, 0, 0), p(2)));
    assert!(Face::ALL.iter().all(|&face| tools::paint_of(&map, at(3, 0, 0), face) == p(2)));
    assert!(!tools::paint_tile(&mut map, at(3, 0, 0), p(2)), "no change, no edit");
}

#[test]
fn copy_stamp_resize_and_markers() {
    let mut map = flat_map(4, 4);
    tools::add_tile(&mut map, 0, 0, 1);
    let region = tools::copy_region(&map, (0, 0), (1, 1));
    assert_eq!((region.width, region.depth, region.columns.len()), (2, 2, 4));
    assert!(tools::paste_region(&mut map, &region, 2, 2));
    assert_eq!(tools::tiles_at(&map, 2, 2).len(), 2, "the stacked column was stamped");
    assert!(!tools::paste_region(&mut map, &region, 2, 2), "stamping the same again changes nothing");
    let knight = tools::UnitPlacing { unit: "knight".to_owned(), ..tools::UnitPlacing::default() };
    assert!(tools::place_unit(&mut map, (1, 1, 1), &knight));
    assert!(tools::place_prop(&mut map, (3, 3, 1), "Barrel", (1, 1, 1)));
    let report = tools::resize(&mut map, 3, 3, -1, -1).unwrap();
    assert_eq!((map.width, map.depth), (3, 3));
    assert_eq!(report.dropped_columns, 7);
    assert_eq!(tools::tiles_at(&map, 1, 1).len(), 2, "(2, 2) moved to (1, 1) with its contents");
    assert_eq!((map.placements[0].x, map.placements[0].y), (0, 0));
    assert!(!tools::remove_markers(&mut map, (0, 0, 2)), "nothing stands on level 2");
    assert!(tools::remove_markers(&mut map, (0, 0, 1)));
    assert!(map.placements.is_empty());
}

/// A stroke's edits with one gesture undo in one step.
#[test]
fn a_brush_stroke_is_one_undo_step() {
    let mut project = Project::default();
    let map = TileMap { id: "arena".into(), ..flat_map(3, 3) };
    project.tile_maps.insert(map.clone());
    let mut document = Document::new(project);
    let mut history = History::new();
    let mut current = map.clone();
    for x in 0..3 {
        assert!(tools::paint_face(&mut current, at(x, 1, 0), Face::Top, p(0)));
        history.apply(&mut document, Op::put(Arc::new(current.clone())), "Paint faces", Some(7)).unwrap();
    }
    history.end_gesture();
    assert_eq!(history.undo_len(), 1);
    let painted = |document: &Document| {
        let item = get_item(document.project(), Kind::TileMap, "arena").unwrap();
        let map = item.as_any().downcast_ref::<TileMap>().unwrap().clone();
        (0..3).filter(|&x| tools::paint_of(&map, at(x, 1, 0), Face::Top) == p(0)).count()
    };
    assert_eq!(painted(&document), 3);
    history.undo(&mut document).unwrap();
    assert_eq!(painted(&document), 0);
}

/// Picking: the ray through the screen point where a face's centre projects hits that face.
#[test]
fn picking_returns_the_face_under_a_screen_point() {
    let mut map = flat_map(6, 6);
    tools::add_tile(&mut map, 2, 3, 1);
    tools::raise_corners(&mut map, at(4, 1, 0), Corner::of_side(Face::PosY), 1);
    let rect = Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
    for projection in [Projection::Orthographic, Projection::Perspective] {
        let mut state = MapViewState::default();
        state.slicing = Slicing::ShowAll;
        state.prepare(&map, rect, None).unwrap();
        state.camera.projection = projection;
        state.prepare(&map, rect, None).unwrap();
        // Top of the stacked tile, the -y side of it (facing the preset-0 eye), and the ramp.
        for (grid, cell, tile_z, face) in [
            ([2.5, 3.5, 2.0], (2, 3), 1, Face::Top),
            ([2.5, 3.0, 1.5], (2, 3), 1, Face::NegY),
            ([1.5, 4.5, 1.0], (1, 4), 0, Face::Top),
        ] {
            let screen = state.screen_of_grid(grid).unwrap();
            let hit = state.pick_at(screen).unwrap_or_else(|| panic!("{projection:?}: nothing at {grid:?}"));
            assert_eq!(
                ((hit.cell_x, hit.cell_y), hit.tile_z, hit.face),
                (cell, tile_z, face),
                "{projection:?} {grid:?}"
            );
        }
        // A point off the map picks nothing.
        assert!(state.pick_at(Pos2::new(2.0, 2.0)).is_none());
    }
}

#[test]
fn slicing_hides_the_levels_above_and_a_tile_edit_remeshes() {
    let mut map = flat_map(4, 4);
    for z in 1..4 {
        tools::add_tile(&mut map, 1, 1, z);
    }
    let camera = Camera::framing([4.0, 4.0, 2.0]);
    let frame = camera.frame(Rect::from_min_size(Pos2::ZERO, egui::vec2(640.0, 480.0)));
    let mut build = FrameBuild::default();
    let mut scene = MapScene::new(&map, None).unwrap();
    build.build(&scene, &frame, Slicing::ShowAll, None);
    let all = build.drawn_faces;
    assert!(scene.sync(&map, Some(0)));
    build.build(&scene, &frame, Slicing::HideAbove, None);
    assert!(build.drawn_faces < all, "the tower above level 0 is left out");
    // The cut shows the top of the tower's base (culled while the tower stood on it).
    let top_of_base = scene.below_grid().column(1, 1).len();
    assert_eq!(top_of_base, 1);
    let before = scene.revision();
    let mut edited = map.clone();
    tools::remove_tile(&mut edited, at(3, 3, 0));
    assert!(scene.sync(&edited, Some(0)));
    assert!(scene.revision() > before);
    assert!(scene.below_grid().column(3, 3).is_empty());
    assert!(!scene.sync(&edited, Some(0)), "nothing changed");
}

#[test]
fn a_scene_takes_in_edits_column_by_column_and_ends_equal_to_the_map() {
    let mut map = flat_map(6, 6);
    let mut scene = MapScene::new(&map, None).unwrap();
    let mut rng = actforge_tests::Rng::new(7);
    for step in 0..300_u32 {
        let (x, y) = ((rng.next_u64() % 7) as u16, (rng.next_u64() % 6) as u16);
        let z = (rng.next_u64() % 3) as u16;
        match step % 5 {
            0 | 1 => {
                tools::add_tile(&mut map, x, y, z);
            }
            2 => {
                tools::remove_tile_at_level(&mut map, x, y, z);
            }
            3 => {
                tools::paint_face(&mut map, at(x, y, z), Face::Top, p(0));
            }
            _ => {
                map.label = format!("step {step}");
                tools::place_prop(&mut map, (x, y, z), "barrel", (1, 1, 1));
            }
        }
        scene.sync(&map, None);
        assert_eq!(scene.map(), &map, "step {step}");
        let tiles: usize = map.columns.iter().map(|c| c.tiles.len()).sum();
        let gridded: usize =
            (0..6).flat_map(|y| (0..6).map(move |x| (x, y))).map(|(x, y)| scene.full_grid().column(x, y).len()).sum();
        assert_eq!(gridded, tiles, "step {step}");
    }
}

fn skirmish() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/srpg-skirmish")
}

fn ridge(app: &ActforgeApp) -> TileMap {
    let item = get_item(app.project().unwrap(), Kind::TileMap, "ridge").unwrap();
    item.as_any().downcast_ref::<TileMap>().unwrap().clone()
}

/// The editor on a copy of the skirmish in `folder`, with the Ridge open in the Tile map tab.
fn ridge_tab(folder: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(folder.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().select(ItemKey::new(Kind::TileMap, "ridge"));
    harness.state_mut().request(UiCommand::TileMapEditor);
    harness.run_steps(4);
    harness
}

/// Presses and releases the primary button at a screen point, a frame apart.
fn click_at(harness: &mut Harness<'static, ActforgeApp>, pos: Pos2) {
    harness.input_mut().events.push(egui::Event::PointerMoved(pos));
    harness.run_steps(1);
    let press = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.input_mut().events.push(press(true));
    harness.run_steps(1);
    harness.input_mut().events.push(press(false));
    harness.run_steps(2);
}

#[test]
fn the_tile_map_tab_paints_a_face_and_undo_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&skirmish(), dir.path()).unwrap();
    let mut harness = ridge_tab(dir.path());
    harness.get_by_label("Tile map view");
    harness.get_by_label(&format!("{} Paint", egui_phosphor::regular::PAINT_BRUSH)).click();
    harness.run_steps(2);
    // The brush paints "Unpainted" (the palette's first choice): grass tops become bare.
    assert_eq!(harness.state().map_editor().paint, None);
    let before = ridge(harness.state());
    let undo_steps = harness.state().history().undo_len();
    // The top of cell (1, 1)'s tile, where the view projects its centre.
    let tile = tools::tiles_at(&before, 1, 1).last().unwrap().clone();
    assert_eq!(tile.paint.top, Some(Paint::new("grass", 0)), "grass before");
    let top = tile.top_z() as f32;
    let screen = harness.state().map_editor().view.screen_of_grid([1.5, 1.5, top]).unwrap();
    click_at(&mut harness, screen);
    let after = ridge(harness.state());
    assert_eq!(tools::paint_of(&after, at(1, 1, tile.z), Face::Top), None, "the clicked top is unpainted now");
    assert_eq!(tools::paint_of(&after, at(1, 1, tile.z), Face::NegX), tile.paint.neg_x, "other faces unchanged");
    assert_eq!(harness.state().history().undo_len(), undo_steps + 1, "one step");
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(2);
    assert_eq!(ridge(harness.state()), before);
}

#[test]
fn a_tile_map_view_draws_overlays_without_tools() {
    // The read-only use of the widget: draw a map with a marker, a tint and a path.
    let map = flat_map(5, 5);
    let overlays = Overlays {
        tinted_cells: vec![actforge_editor::views::map::CellTint {
            cell_x: 1,
            cell_y: 1,
            level: 1,
            colour: egui::Color32::BLUE,
        }],
        units: vec![actforge_editor::views::map::UnitMarker {
            cell_x: 2,
            cell_y: 2,
            level: 1,
            label: "Knight".to_owned(),
            colour: egui::Color32::RED,
            active: true,
            facing_degrees: Some(90.0),
            art: None,
        }],
        props: vec![actforge_editor::views::map::PropBox {
            cell_x: 3,
            cell_y: 3,
            level: 1,
            size: (2, 1, 2),
            label: "Crate".to_owned(),
            colour: egui::Color32::BROWN,
        }],
        path: vec![[1.5, 1.5, 1.0], [2.5, 1.5, 1.0], [2.5, 2.5, 1.0]],
        sight: None,
    };
    let mut harness = Harness::builder().with_size([600.0, 400.0]).build_ui_state(
        move |ui, state: &mut MapViewState| {
            actforge_editor::views::map::map_view_ui(ui, state, &map, &overlays);
        },
        MapViewState::default(),
    );
    harness.run_steps(2);
    harness.get_by_label("Tile map view");
    assert!(harness.state().drawn_faces() >= 25 + 10, "tops and the near sides");
    let _ = Tile::cube(0);
}

/// A file dropped on the window, as the platform hands it over.
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|error| error.to_string())
    }
}

#[test]
fn a_dropped_png_joins_the_palette_textures_the_view_and_paints_a_face() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&skirmish(), dir.path()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let lava = outside.path().join("lava.png");
    image::RgbaImage::from_pixel(16, 16, image::Rgba([230, 80, 20, 255])).save(&lava).unwrap();
    let mut harness = ridge_tab(dir.path());
    // The bundled ridge already has pictures: the view draws with the atlas, grass tops in cell 0.
    let mesh = harness.state().map_editor().view.frame_mesh();
    assert_ne!(mesh.texture_id, egui::TextureId::default(), "textured with the palette atlas");
    assert!(mesh.vertices.iter().any(|v| v.uv.x < 0.5 && v.uv.y < 0.5 && v.uv != egui::epaint::WHITE_UV));
    let before = ridge(harness.state());
    let undo_steps = harness.state().history().undo_len();

    harness.input_mut().dropped_files.push(Arc::new(Dropped(lava)));
    harness.run_steps(3);
    let imported = ridge(harness.state());
    assert_eq!(imported.palette.len(), before.palette.len() + 1);
    let entry = imported.palette.last().unwrap();
    assert_eq!((entry.label.as_str(), entry.image.as_deref()), ("lava", Some("textures/lava.png")));
    assert!(dir.path().join("textures/lava.png").is_file(), "copied into the project");
    // In the palette (and in the inspector's palette list, by its label).
    assert!(harness.query_all_by_label("lava").count() >= 1);
    harness.get_by_label("Imported lava");
    let lava_index = imported.palette.len() - 1;
    assert_eq!(entry.id.as_str(), "lava", "the id comes from the file name");
    let lava = Some(Paint::new("lava", 0));
    assert_eq!(harness.state().map_editor().paint, lava, "the brush takes the new picture");

    // Paint the top of cell (1, 1) with it: the face's UVs move into the new picture's cell.
    let tile = tools::tiles_at(&imported, 1, 1).last().unwrap().clone();
    let top = tile.top_z() as f32;
    let screen = harness.state().map_editor().view.screen_of_grid([1.5, 1.5, top]).unwrap();
    click_at(&mut harness, screen);
    let painted = ridge(harness.state());
    assert_eq!(tools::paint_of(&painted, at(1, 1, tile.z), Face::Top), lava);
    let layout = actforge_editor::views::map::palette::atlas_layout(&painted, &[]);
    let cell = layout.tile_rect(lava_index, 0).unwrap();
    let mesh = harness.state().map_editor().view.frame_mesh();
    let in_lava_cell = |v: &egui::epaint::Vertex| {
        (cell.u_min..=cell.u_max).contains(&v.uv.x) && (cell.v_min..=cell.v_max).contains(&v.uv.y)
    };
    assert_eq!(mesh.vertices.iter().filter(|v| in_lava_cell(v)).count(), 4, "one face drawn with the picture");
    assert_eq!(harness.state().history().undo_len(), undo_steps + 2, "the import and the stroke");
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(2);
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(2);
    assert_eq!(ridge(harness.state()), before);
}

#[test]
fn a_dropped_file_that_is_not_a_png_is_refused_and_the_palette_stays() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&skirmish(), dir.path()).unwrap();
    let fake = dir.path().join("notes.png");
    std::fs::write(&fake, "these are notes").unwrap();
    let mut harness = ridge_tab(dir.path());
    let before = ridge(harness.state());
    harness.get_by_label(&format!("{} Paint", egui_phosphor::regular::PAINT_BRUSH)).click();
    harness.input_mut().dropped_files.push(Arc::new(Dropped(fake)));
    harness.run_steps(3);
    assert_eq!(ridge(harness.state()), before);
    // The refusal names the file and why.
    harness.get_by_label_contains("notes.png is not a PNG picture");
}

/// Which face the painter's order shows at a screen point: the last triangle drawn over it,
/// named by the palette entry whose atlas cell its UVs fall in.
fn painted_index_at(mesh: &egui::Mesh, layout: &actforge_runtime::map::AtlasLayout, point: Pos2) -> Option<Paint> {
    let inside = |a: Pos2, b: Pos2, c: Pos2| {
        let side = |p: Pos2, q: Pos2| (q.x - p.x) * (point.y - p.y) - (q.y - p.y) * (point.x - p.x);
        let (ab, bc, ca) = (side(a, b), side(b, c), side(c, a));
        (ab >= 0.0 && bc >= 0.0 && ca >= 0.0) || (ab <= 0.0 && bc <= 0.0 && ca <= 0.0)
    };
    let triangle = mesh.indices.chunks_exact(3).rev().find(|t| {
        let [a, b, c] = [0, 1, 2].map(|i| mesh.vertices[t[i] as usize].pos);
        inside(a, b, c)
    })?;
    let uv = (0..3).fold(egui::Vec2::ZERO, |sum, i| sum + mesh.vertices[triangle[i] as usize].uv.to_vec2()) / 3.0;
    layout
        .rects
        .iter()
        .position(|r| (r[0].u_min..=r[0].u_max).contains(&uv.x) && (r[0].v_min..=r[0].v_max).contains(&uv.y))
        .and_then(|i| p(i as u16))
}

#[test]
fn the_painters_order_shows_the_face_a_ray_meets_first() {
    // Ramps, a tall tower beside low ground, an overhang and an inset pillar: shapes where
    // sorting single faces by depth draws a far face over a near one.
    let mut map = flat_map(7, 7);
    assert!(tools::raise_corners(&mut map, at(2, 3, 0), &[Corner::X1Y0, Corner::X1Y1], 1));
    assert!(tools::set_height(&mut map, at(3, 3, 0), 5));
    assert!(tools::add_tile(&mut map, 1, 1, 3));
    assert!(tools::set_height(&mut map, at(4, 5, 0), 3));
    assert!(tools::set_inset(&mut map, at(4, 5, 0), Face::NegX, 0.3));
    assert!(tools::set_height(&mut map, at(5, 2, 0), 2));
    // Every face of every tile gets a palette entry of its own.
    let mut faces = Vec::new();
    for column in map.columns.clone() {
        for tile in &column.tiles {
            for face in Face::ALL {
                faces.push((column.x, column.y, tile.z, face));
            }
        }
    }
    map.palette = entries(faces.len());
    for (index, &(x, y, z, face)) in faces.iter().enumerate() {
        tools::paint_face(&mut map, at(x, y, z), face, p(index as u16));
    }
    let layout = actforge_editor::views::map::palette::atlas_layout(&map, &[]);
    let rect = Rect::from_min_size(Pos2::ZERO, egui::vec2(400.0, 300.0));
    let scene = MapScene::new(&map, None).unwrap();
    let mut build = FrameBuild::default();
    let (mut compared, mut wrong) = (0, 0);
    for projection in [Projection::Orthographic, Projection::Perspective] {
        for view in 0..8_u8 {
            let mut camera = Camera::framing([7.0, 7.0, 2.0]);
            camera.projection = projection;
            camera.set_iso_preset(view % 4);
            if view >= 4 {
                camera.orbit(egui::vec2(17.0 * f32::from(view), -20.0));
            }
            let frame = camera.frame(rect);
            build.build(&scene, &frame, Slicing::ShowAll, Some(egui::TextureId::User(1)));
            for sample_y in 0..60 {
                for sample_x in 0..80 {
                    let point = Pos2::new(2.5 + 5.0 * sample_x as f32, 2.5 + 5.0 * sample_y as f32);
                    let (origin, direction) = frame.ray(point);
                    let hit = actforge_runtime::map::pick(
                        scene.below_grid(),
                        actforge_runtime::map::MapScale::of(&map),
                        origin,
                        direction,
                        true,
                    );
                    let Some(hit) = hit else { continue };
                    let expected = tools::paint_of(&map, at(hit.cell_x, hit.cell_y, hit.tile_z), hit.face);
                    compared += 1;
                    if painted_index_at(&build.mesh, &layout, point) == expected {
                        continue;
                    }
                    // A point on the edge between two faces may go either way.
                    let near_edge = [(-0.75, 0.0), (0.75, 0.0), (0.0, -0.75), (0.0, 0.75)].iter().any(|&(dx, dy)| {
                        painted_index_at(&build.mesh, &layout, point + egui::vec2(dx, dy)) == expected
                    });
                    if !near_edge {
                        wrong += 1;
                    }
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared} points compared");
    assert_eq!(wrong, 0, "{wrong} of {compared} points show a face behind the one in front");
}

/// A bridge: ground cubes everywhere, and over the middle row a deck two levels up.
fn bridge_map() -> TileMap {
    let mut map = flat_map(3, 3);
    for x in 0..3 {
        assert!(tools::add_tile(&mut map, x, 1, 3));
    }
    map
}

#[test]
fn two_units_stand_on_one_cell_at_two_levels_and_remove_takes_one() {
    let mut map = bridge_map();
    let knight = tools::UnitPlacing { unit: "knight".to_owned(), team: " red ".to_owned(), facing_degrees: -90.0 };
    let archer = tools::UnitPlacing { unit: "archer".to_owned(), ..tools::UnitPlacing::default() };
    assert!(tools::place_unit(&mut map, (1, 1, 1), &knight), "under the deck");
    assert!(tools::place_unit(&mut map, (1, 1, 4), &archer), "on the deck");
    assert_eq!(map.placements.len(), 2, "two levels of one cell: two units");
    assert_eq!((map.placements[0].z, map.placements[0].team.as_str()), (Some(1), "red"));
    assert_eq!(map.placements[0].facing_degrees, 270.0, "facing kept in 0..360");
    assert!(!tools::place_unit(&mut map, (1, 1, 4), &archer), "the same again changes nothing");
    assert!(tools::place_unit(&mut map, (1, 1, 4), &knight), "replaces the unit on the deck only");
    assert_eq!(map.placements.len(), 2);
    assert!(tools::remove_markers(&mut map, (1, 1, 4)));
    assert_eq!(map.placements.len(), 1);
    assert_eq!(map.placements[0].z, Some(1), "the unit under the deck stays");
    // A placement without a level stands on the column's top.
    map.placements[0].z = None;
    assert_eq!(tools::placement_level(&map, &map.placements[0]), 4);
}

#[test]
fn a_prop_gets_a_size_kept_inside_the_map() {
    let mut map = flat_map(4, 4);
    assert!(tools::place_prop(&mut map, (2, 1, 1), "Wagon", (5, 2, 0)));
    assert_eq!(map.props[0].size, (2, 2, 1), "clamped to the map's edge and at least one level");
    assert!(tools::place_prop(&mut map, (2, 1, 3), "Lamp", (1, 1, 2)), "another level of the cell");
    assert_eq!(map.props.len(), 2);
    // The view draws it as a box of that size.
    let wagon = &map.props[0];
    let drawn = actforge_editor::views::map::PropBox {
        cell_x: wagon.x,
        cell_y: wagon.y,
        level: wagon.z,
        size: wagon.size,
        label: wagon.label.clone(),
        colour: egui::Color32::BROWN,
    };
    let corners = actforge_editor::views::map::overlay::prop_corners(&drawn);
    let extent = |axis: usize| {
        let values = corners.iter().map(|c| c[axis]);
        (values.clone().fold(f32::MAX, f32::min), values.fold(f32::MIN, f32::max))
    };
    assert_eq!((extent(0), extent(1), extent(2)), ((2.0, 4.0), (1.0, 3.0), (1.0, 2.0)));
}

#[test]
fn a_tint_on_a_ramp_lies_on_the_slope() {
    use actforge_editor::views::map::overlay::{foot_point, tint_corners};
    // A ramp rising from 1 level at x = 0 to 3 levels at x = 1.
    let mut map = flat_map(2, 1);
    tools::raise_corners(&mut map, at(1, 0, 0), &[Corner::X1Y0, Corner::X1Y1], 2);
    let scene = MapScene::new(&map, None).unwrap();
    let grid = scene.full_grid();
    let corners = tint_corners(grid, 1, 0, 3);
    for [x, _, z] in corners {
        let expected = 1.0 + 2.0 * (x - 1.0) + 0.03;
        assert!((z - expected).abs() < 1e-4, "corner at x {x} is at {z}, the slope there is {expected}");
    }
    let low = corners.iter().map(|c| c[2]).fold(f32::MAX, f32::min);
    let high = corners.iter().map(|c| c[2]).fold(f32::MIN, f32::max);
    assert!(high - low > 1.7, "not a flat square: {low}..{high}");
    // The flat neighbour's tint is flat at its top; bare ground (level 0) gets a flat square.
    assert!(tint_corners(grid, 0, 0, 1).iter().all(|c| (c[2] - 1.03).abs() < 1e-4));
    assert!(tint_corners(grid, 0, 0, 0).iter().all(|c| (c[2] - 0.03).abs() < 1e-4));
    // A unit on the ramp stands at the slope's middle height.
    assert!((foot_point(grid, 1, 0, 3)[2] - 2.0).abs() < 1e-4);
}

/// A copy of the skirmish with the 5×3 map `span` added: ground everywhere, stairs (two cubes)
/// at (0, 1) and (4, 1), and a deck one level over the ground on (1..=3, 1). With `battle`, the
/// battle is fought on it: the knight at (0, 0), the brute at (4, 2).
pub fn span_project(folder: &Path, battle: bool) {
    actforge_tests::copy_dir(&skirmish(), folder).unwrap();
    let mut map = TileMap { id: actforge_runtime::Id::new("span"), label: "Span".to_owned(), ..flat_map(5, 3) };
    for x in 0..5 {
        assert!(tools::add_tile(&mut map, x, 1, if x == 0 || x == 4 { 1 } else { 2 }));
    }
    if battle {
        map.placements = vec![
            actforge_runtime::model::Placement {
                unit: actforge_runtime::Id::new("knight"),
                team: String::new(),
                x: 0,
                y: 0,
                z: None,
                facing_degrees: 0.0,
            },
            actforge_runtime::model::Placement {
                unit: actforge_runtime::Id::new("brute"),
                team: String::new(),
                x: 4,
                y: 2,
                z: None,
                facing_degrees: 180.0,
            },
        ];
        let manifest = folder.join("project.ron");
        let text = std::fs::read_to_string(&manifest).unwrap().replace("Some(\"ridge\")", "Some(\"span\")");
        std::fs::write(manifest, text).unwrap();
    }
    let text = ron::ser::to_string_pretty(&map, ron::ser::PrettyConfig::default()).unwrap();
    std::fs::write(folder.join("tile_maps/span.ron"), text).unwrap();
}

/// A screen point of the view where the ray meets the top of tile `tile_index` of a cell.
fn top_in_view(view: &MapViewState, cell: (u16, u16), tile_index: usize, level: f32) -> Option<Pos2> {
    (1..10).flat_map(|i| (1..10).map(move |j| (i, j))).find_map(|(i, j)| {
        let point = [f32::from(cell.0) + i as f32 / 10.0, f32::from(cell.1) + j as f32 / 10.0, level];
        let screen = view.screen_of_grid(point)?;
        let hit = view.pick_at(screen)?;
        ((hit.cell_x, hit.cell_y, hit.tile_index, hit.face) == (cell.0, cell.1, tile_index, Face::Top))
            .then_some(screen)
    })
}

fn span(app: &ActforgeApp) -> TileMap {
    let item = get_item(app.project().unwrap(), Kind::TileMap, "span").unwrap();
    item.as_any().downcast_ref::<TileMap>().unwrap().clone()
}

#[test]
fn markers_place_two_units_on_one_cell_with_the_team_and_facing_chosen_and_a_sized_prop() {
    let dir = tempfile::tempdir().unwrap();
    span_project(dir.path(), false);
    let mut harness = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().select(ItemKey::new(Kind::TileMap, "span"));
    harness.state_mut().request(UiCommand::TileMapEditor);
    harness.run_steps(4);
    harness.get_by_label(&format!("{} Markers", egui_phosphor::regular::MAP_PIN)).click();
    harness.run_steps(2);
    harness.get_by_label("Team").click();
    harness.run_steps(1);
    harness.get_by_label("Team").type_text("red");
    harness.get_by_label("N").click();
    harness.run_steps(2);
    assert_eq!(
        (harness.state().map_editor().team.as_str(), harness.state().map_editor().facing_degrees),
        ("red", 90.0)
    );
    // The deck over (2, 1): its top is level 3.
    let deck = top_in_view(&harness.state().map_editor().view, (2, 1), 1, 3.0).expect("the deck in view");
    click_at(&mut harness, deck);
    let map = span(harness.state());
    assert_eq!(map.placements.len(), 1);
    let placed = &map.placements[0];
    assert_eq!(
        (placed.x, placed.y, placed.z, placed.team.as_str(), placed.facing_degrees),
        (2, 1, Some(3), "red", 90.0)
    );
    // Under the deck: hide what is above level 1, then the ground's top is what the cursor meets.
    harness.state_mut().map_editor_mut().view.edited_level = 1;
    harness.state_mut().map_editor_mut().view.slicing = Slicing::HideAbove;
    harness.run_steps(2);
    let ground = top_in_view(&harness.state().map_editor().view, (2, 1), 0, 1.0).expect("the ground in view");
    harness.state_mut().map_editor_mut().facing_degrees = 180.0;
    click_at(&mut harness, ground);
    let map = span(harness.state());
    let levels: Vec<(Option<u16>, f32)> = map.placements.iter().map(|p| (p.z, p.facing_degrees)).collect();
    assert_eq!(levels, [(Some(3), 90.0), (Some(1), 180.0)], "two units on one cell, one per level");
    // A prop of the size chosen stands on the ground there too, and is drawn as a box.
    harness.get_by_label("Place a prop").click();
    harness.state_mut().map_editor_mut().prop_size = (2, 1, 3);
    harness.state_mut().map_editor_mut().prop_label = "Crate".to_owned();
    harness.run_steps(1);
    let ground = top_in_view(&harness.state().map_editor().view, (1, 0), 0, 1.0).expect("the ground in view");
    click_at(&mut harness, ground);
    let map = span(harness.state());
    assert_eq!(map.props.iter().map(|p| (p.x, p.y, p.z, p.size)).collect::<Vec<_>>(), [(1, 0, 1, (2, 1, 3))]);
    // Remove takes only the markers of the level under the cursor.
    harness.get_by_label("Remove markers").click();
    harness.run_steps(1);
    let ground = top_in_view(&harness.state().map_editor().view, (2, 1), 0, 1.0).expect("the ground in view");
    click_at(&mut harness, ground);
    let map = span(harness.state());
    assert_eq!(map.placements.iter().map(|p| p.z).collect::<Vec<_>>(), [Some(3)], "the deck's unit stays");
}

/// The battle on `span` in the preview, and the active unit's move choices on cell (2, 1)'s
/// two levels (the deck and the ground under it), with where each shows in the view.
fn span_battle(dir: &Path) -> Harness<'static, ActforgeApp> {
    span_project(dir, true);
    let mut harness = Harness::builder()
        .with_size([1280.0, 900.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    harness
}

/// The move choices of the active unit onto cell (2, 1), by level.
fn moves_onto_the_bridge_cell(app: &ActforgeApp) -> Vec<(String, u16)> {
    use actforge_runtime::engine::Choice;
    let session = app.preview().game.session().unwrap();
    let mut moves: Vec<(String, u16)> = session
        .choices()
        .into_iter()
        .filter_map(|choice| match choice {
            Choice::MoveUnit { unit, x: 2, y: 1, z } => Some((format!("move {unit} 2 1 {z}"), z)),
            _ => None,
        })
        .collect();
    moves.sort_by_key(|(_, z)| *z);
    moves
}

#[test]
fn a_click_in_the_battle_preview_picks_the_deck_or_the_ground_under_it() {
    // The deck.
    let dir = tempfile::tempdir().unwrap();
    let mut harness = span_battle(dir.path());
    let moves = moves_onto_the_bridge_cell(harness.state());
    assert_eq!(moves.iter().map(|(_, z)| *z).collect::<Vec<_>>(), [1, 3], "both levels are reachable");
    let deck = top_in_view(harness.state().preview().map_view(), (2, 1), 1, 3.0).expect("the deck in view");
    harness.hover_at(deck);
    harness.run_steps(1);
    harness.drag_at(deck);
    harness.run_steps(1);
    harness.drop_at(deck);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log(), [moves[1].0.clone()], "the upper level");
    // The ground under it, seen between the ground and the deck's bottom.
    let dir = tempfile::tempdir().unwrap();
    let mut harness = span_battle(dir.path());
    let Some(ground) = top_in_view(harness.state().preview().map_view(), (2, 1), 0, 1.0) else {
        panic!("the ground under the deck is not in view from the default camera");
    };
    harness.hover_at(ground);
    harness.run_steps(1);
    harness.drag_at(ground);
    harness.run_steps(1);
    harness.drop_at(ground);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log(), [moves[0].0.clone()], "the lower level");
}

#[test]
fn a_unit_with_art_stands_as_a_billboard_and_one_without_as_a_disc() {
    let dir = tempfile::tempdir().unwrap();
    let picture = image::RgbaImage::from_fn(8, 12, |x, _| image::Rgba([200, 40 * (x as u8 % 4), 40, 255]));
    picture.save(dir.path().join("hero.png")).unwrap();
    let map = flat_map(4, 4);
    let marker = |cell_x: u16, art: Option<&str>| actforge_editor::views::map::UnitMarker {
        cell_x,
        cell_y: 1,
        level: 1,
        label: "Unit".to_owned(),
        colour: egui::Color32::RED,
        active: false,
        facing_degrees: Some(0.0),
        art: art.map(str::to_owned),
    };
    let overlays = Overlays { units: vec![marker(1, Some("hero.png")), marker(2, None)], ..Overlays::default() };
    let mut state = MapViewState::default();
    state.project_folder = Some(dir.path().to_owned());
    let mut harness = Harness::builder().with_size([600.0, 400.0]).build_ui_state(
        move |ui, state: &mut MapViewState| {
            actforge_editor::views::map::map_view_ui(ui, state, &map, &overlays);
        },
        state,
    );
    // The picture is read on a worker thread: a few frames until it is a texture.
    for _ in 0..50 {
        harness.run_steps(1);
        if harness.state().drawn_billboards() > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(harness.state().drawn_billboards(), 1, "the unit with art only");
}

#[test]
fn the_tabs_reach_is_the_units_own_move_not_a_default() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&skirmish(), dir.path()).unwrap();
    let mut harness = ridge_tab(dir.path());
    let map = ridge(harness.state());
    // The archer moves 4 (`step`: radius c.move); the default region walked 3.
    let archer = map.placements.iter().find(|p| p.unit.as_str() == "archer").unwrap().clone();
    let level = tools::placement_level(&map, &archer);
    harness.state_mut().map_editor_mut().overlay_unit = Some((archer.x, archer.y, level));
    harness.state_mut().map_editor_mut().show_reach = true;
    harness.run_steps(2);
    let reach = harness.state().map_editor().reach_spots();
    let far = reach.iter().map(|spot| spot.cell_x.abs_diff(archer.x) + spot.cell_y.abs_diff(archer.y)).max();
    assert_eq!(far, Some(4), "{reach:?}");
    let content = std::sync::Arc::new(
        actforge_runtime::engine::Content::compile(harness.state().project().unwrap().clone()).unwrap(),
    );
    let index = map.placements.iter().position(|p| *p == archer).unwrap();
    let battle: Vec<_> =
        actforge_runtime::engine::TacticsState::start_moves(&content, &map, index).into_keys().collect();
    assert_eq!(reach, battle);
}

#[test]
fn an_invisible_tile_is_no_face_and_is_outlined_in_the_tab_only() {
    let mut map = flat_map(3, 3);
    tools::add_tile(&mut map, 1, 1, 1);
    let camera = Camera::framing([3.0, 3.0, 2.0]);
    let frame = camera.frame(Rect::from_min_size(Pos2::ZERO, egui::vec2(640.0, 480.0)));
    let mut build = FrameBuild::default();
    let faces = |map: &TileMap, build: &mut FrameBuild| {
        build.build(&MapScene::new(map, None).unwrap(), &frame, Slicing::ShowAll, None);
        build.drawn_faces
    };
    let solid = faces(&map, &mut build);
    let mut hidden = map.clone();
    assert!(tools::set_invisible(&mut hidden, at(1, 1, 1), true));
    // The tile's visible faces (top and near sides) are gone; the ground's top under it shows.
    assert!(faces(&hidden, &mut build) < solid, "invisible tiles are not drawn as faces");
    // Its twelve edges are what the Tile map tab outlines.
    let tile = tools::tile(&hidden, at(1, 1, 1)).unwrap();
    let edges = actforge_editor::views::map::overlay::solid_edges(&actforge_runtime::map::TileSolid::new(1, 1, tile));
    assert!(edges.iter().all(|[a, b]| a != b));
    assert_eq!(edges.iter().filter(|[a, b]| a[2] == 1.0 && b[2] == 1.0).count(), 4, "the bottom ring");
    assert_eq!(edges.iter().filter(|[a, b]| a[2] == 2.0 && b[2] == 2.0).count(), 4, "the top ring");
}

/// Types `text` into the text field labelled `label`.
fn type_into(harness: &mut Harness<'static, ActforgeApp>, label: &str, text: &str) {
    harness.get_by_role_and_label(egui::accesskit::Role::TextInput, label).focus();
    harness.run_steps(1);
    harness.get_by_role_and_label(egui::accesskit::Role::TextInput, label).type_text(text);
    harness.run_steps(2);
}

/// Scrolls the widget labelled `label` into view and clicks it.
fn press(harness: &mut Harness<'static, ActforgeApp>, label: &str) {
    harness.get_by_label(label).scroll_to_me();
    // Scrolling is animated over a few frames.
    harness.run_steps(8);
    harness.get_by_label(label).click();
    harness.run_steps(1);
}

#[test]
fn a_typed_tileset_is_sliced_a_tile_painted_reordering_keeps_paint_and_deleting_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&skirmish(), dir.path()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    // A 64×32 sheet of 16×16 tiles: 4 per row, 2 rows, each tile its own colour.
    let sheet = outside.path().join("dungeon.png");
    let image = image::RgbaImage::from_fn(64, 32, |x, y| {
        let tile = (y / 16) * 4 + x / 16;
        image::Rgba([(tile * 30) as u8, 200 - (tile * 20) as u8, 90, 255])
    });
    image.save(&sheet).unwrap();
    let mut harness = ridge_tab(dir.path());
    press(&mut harness, &format!("{} Paint", egui_phosphor::regular::PAINT_BRUSH));
    harness.run_steps(2);
    let before = ridge(harness.state());

    // Import by typed path, sliced 16×16 (the defaults): the preview counts the tiles.
    type_into(&mut harness, "PNG path", sheet.to_str().unwrap());
    harness.get_by_label_contains("4 × 2 = 8 tiles");
    press(&mut harness, &format!("{} Import", egui_phosphor::regular::IMAGE));
    harness.run_steps(3);

    let imported = ridge(harness.state());
    let entry = imported.palette.last().unwrap();
    assert_eq!(entry.id.as_str(), "dungeon");
    assert_eq!(entry.image.as_deref(), Some("textures/dungeon.png"));
    assert_eq!(entry.tileset.map(|t| (t.tile_width, t.tile_height, t.margin, t.spacing)), Some((16, 16, 0, 0)));
    assert_eq!(harness.state().map_editor().paint, Some(Paint::new("dungeon", 0)));

    // Pick tile 2 of the sheet and paint the top of cell (1, 1).
    press(&mut harness, "Tile 2 of dungeon");
    harness.run_steps(2);
    let tile2 = Some(Paint::new("dungeon", 2));
    assert_eq!(harness.state().map_editor().paint, tile2);
    let tile = tools::tiles_at(&imported, 1, 1).last().unwrap().clone();
    let screen = harness.state().map_editor().view.screen_of_grid([1.5, 1.5, tile.top_z() as f32]).unwrap();
    click_at(&mut harness, screen);
    let painted = ridge(harness.state());
    assert_eq!(tools::paint_of(&painted, at(1, 1, tile.z), Face::Top), tile2);
    // The face's UVs lie in tile 2's own atlas cell.
    let tiles = harness.state().map_editor().view.textures.tile_counts().to_vec();
    assert_eq!(tiles.last(), Some(&8), "{tiles:?}");
    let layout = actforge_editor::views::map::palette::atlas_layout(&painted, &tiles);
    let cell = layout.tile_rect(painted.palette.len() - 1, 2).unwrap();
    let mesh = harness.state().map_editor().view.frame_mesh();
    let in_cell = |v: &egui::epaint::Vertex| {
        (cell.u_min..=cell.u_max).contains(&v.uv.x) && (cell.v_min..=cell.v_max).contains(&v.uv.y)
    };
    assert_eq!(mesh.vertices.iter().filter(|v| in_cell(v)).count(), 4, "one face drawn with tile 2");

    // Moving the entry up changes the order and nothing painted.
    press(&mut harness, "Move dungeon up");
    harness.run_steps(2);
    let moved = ridge(harness.state());
    let ids = |map: &TileMap| map.palette.iter().map(|e| e.id.as_str()).collect::<Vec<_>>();
    assert_eq!(ids(&moved), ["grass", "rock", "moss", "dirt", "dungeon", "mud"]);
    assert_eq!(moved.columns, painted.columns, "reordering repaints nothing");

    // Deleting an entry in use asks; Cancel keeps it.
    press(&mut harness, "Delete dungeon");
    harness.run_steps(2);
    harness.get_by_label_contains("1 face uses 'dungeon'. Delete it and leave those faces unpainted?");
    press(&mut harness, "Cancel");
    harness.run_steps(2);
    assert_eq!(ridge(harness.state()), moved);
    assert!(harness.query_by_label_contains("Delete it and leave").is_none());
    // Delete removes the entry and unpaints its face, in one undo step.
    let undo_steps = harness.state().history().undo_len();
    press(&mut harness, "Delete dungeon");
    harness.run_steps(2);
    press(&mut harness, "Delete");
    harness.run_steps(2);
    let deleted = ridge(harness.state());
    assert!(!ids(&deleted).contains(&"dungeon"));
    assert_eq!(tools::paint_of(&deleted, at(1, 1, tile.z), Face::Top), None);
    assert_eq!(harness.state().history().undo_len(), undo_steps + 1);
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(2);
    assert_eq!(ridge(harness.state()), moved, "one undo restores the entry and the face");

    // Deleting an entry nobody paints with needs no question.
    let unused = before.palette.iter().find(|e| tools::faces_using(&moved, e.id) == 0).map(|e| e.id);
    if let Some(unused) = unused {
        press(&mut harness, &format!("Delete {unused}"));
        harness.run_steps(2);
        assert!(!ridge(harness.state()).palette.iter().any(|e| e.id == unused));
    }
}

#[test]
fn palette_ops_rename_reorder_and_delete_by_id() {
    let mut map = flat_map(3, 1);
    map.palette = entries(3);
    tools::paint_face(&mut map, at(0, 0, 0), Face::Top, p(1));
    tools::paint_face(&mut map, at(1, 0, 0), Face::Top, Some(Paint::new("e2", 3)));
    let columns = map.columns.clone();
    assert!(tools::move_palette_entry(&mut map, "e2".into(), true));
    assert!(!tools::move_palette_entry(&mut map, "e0".into(), true), "the first cannot go up");
    assert_eq!(map.columns, columns);
    assert!(tools::rename_palette_entry(&mut map, "e2".into(), "lava"));
    assert_eq!(tools::paint_of(&map, at(1, 0, 0), Face::Top), Some(Paint::new("lava", 3)));
    assert!(!tools::rename_palette_entry(&mut map, "lava".into(), "e1"), "taken");
    assert!(!tools::rename_palette_entry(&mut map, "lava".into(), "Not A Slug"));
    assert_eq!(tools::faces_using(&map, "e1".into()), 1);
    assert!(tools::delete_palette_entry(&mut map, "e1".into()));
    assert_eq!(tools::paint_of(&map, at(0, 0, 0), Face::Top), None);
    assert_eq!(tools::paint_of(&map, at(1, 0, 0), Face::Top), Some(Paint::new("lava", 3)));
    let id = tools::add_palette_entry(&mut map, PaletteEntry { label: "Lava".to_owned(), ..PaletteEntry::default() });
    assert_eq!(id.as_str(), "lava_2", "generated ids are unique");
}
