//! Palette ids, tilesets and paint (FORMAT.md §9): paint names an entry id and a tile of its
//! sheet, so reordering entries repaints nothing; old index paint migrates on load; slicing
//! follows tile size, margin and spacing; dangling paint is diagnosed and drawn unpainted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // test code: a panic is a failed test

use actforge_runtime::map::{AtlasLayout, MapMesher, MapScale, MeshStyle, TileGrid};
use actforge_runtime::model::{
    Column, Faces, Id, Paint, PaletteEntry, PaletteLookup, PixelRect, Project, Terrain, Tile, TileMap, Tileset,
};
use actforge_runtime::project::{Sources, load_folder};
use actforge_runtime::validate::validate;
use std::sync::Arc;

fn entry(id: &str, move_cost: i32) -> PaletteEntry {
    PaletteEntry { id: id.into(), terrain: Terrain { move_cost, ..Terrain::default() }, ..PaletteEntry::default() }
}

fn painted(top: Paint) -> Tile {
    Tile { paint: Faces { top: Some(top), ..Faces::default() }, ..Tile::cube(0) }
}

#[test]
fn paint_reads_and_writes_as_an_id_with_an_optional_tile() {
    let tile = Tile {
        paint: Faces { top: Some(Paint::new("stone", 3)), neg_x: Some(Paint::new("grass", 0)), ..Faces::default() },
        ..Tile::cube(2)
    };
    let text = ron::to_string(&tile).unwrap();
    assert_eq!(text, r#"(z:2,paint:(neg_x:Some("grass"),top:Some("stone#3")))"#);
    assert_eq!(ron::from_str::<Tile>(&text).unwrap(), tile);
    let json = serde_json::to_string(&tile).unwrap();
    assert_eq!(serde_json::from_str::<Tile>(&json).unwrap(), tile);
    for bad in [r##"(z:0,paint:(top:Some("#3")))"##, r#"(z:0,paint:(top:Some("stone#x")))"#] {
        let error = ron::from_str::<Tile>(bad).unwrap_err().to_string();
        assert!(error.contains("entry") || error.contains("tile after"), "{bad}: {error}");
    }
    // Ids compare and sort by name whatever order they were first seen in.
    assert!(Paint::new("zz_late", 0) > Paint::new("aa_early", 9));
}

#[test]
fn ids_resolve_to_palette_indices_whatever_the_order() {
    let palette = vec![entry("water", 1), entry("mud", 3), entry("mud", 9), entry("", 5)];
    let lookup = PaletteLookup::new(&palette);
    assert_eq!(lookup.index("water".into()), Some(0));
    // The first of two entries with one id wins; `check` reports the second.
    assert_eq!(lookup.index("mud".into()), Some(1));
    assert_eq!(lookup.index("lava".into()), None);
    assert_eq!(lookup.index("".into()), None);

    let map = TileMap {
        id: Id::new("m"),
        width: 2,
        depth: 1,
        palette: palette.clone(),
        columns: vec![Arc::new(Column { x: 1, y: 0, tiles: vec![painted(Paint::new("mud", 0))] })],
        ..TileMap::default()
    };
    let grid = TileGrid::from_map(&map).unwrap();
    let tile = painted(Paint::new("mud", 0));
    assert_eq!(grid.move_cost(&tile), 3);
    let mut reordered = map.clone();
    reordered.palette.reverse();
    reordered.palette.retain(|e| e.terrain.move_cost != 9);
    assert_eq!(TileGrid::from_map(&reordered).unwrap().move_cost(&tile), 3);
    // A dangling id is plain ground.
    assert_eq!(grid.move_cost(&painted(Paint::new("lava", 0))), 1);
}

#[test]
fn tilesets_slice_with_margin_and_spacing() {
    // A 2-pixel margin, 1-pixel spacing, 16×8 tiles: 3 columns (2+16+1+16+1+16+2 = 54) and 2 rows.
    let tileset = Tileset { tile_width: 16, tile_height: 8, margin: 2, spacing: 1 };
    let grid = tileset.grid(54, 2 + 8 + 1 + 8 + 2);
    assert_eq!((grid.columns, grid.rows, grid.leftover), (3, 2, (0, 0)));
    assert_eq!(tileset.problem(54, 21), None);
    assert_eq!(tileset.tile_rect(54, 21, 0), Some(PixelRect { x: 2, y: 2, width: 16, height: 8 }));
    assert_eq!(tileset.tile_rect(54, 21, 4), Some(PixelRect { x: 19, y: 11, width: 16, height: 8 }));
    assert_eq!(tileset.tile_rect(54, 21, 6), None);
    // Three pixels too wide: still 3 columns, and a problem naming the leftover.
    let problem = tileset.problem(57, 21).unwrap();
    assert!(problem.contains("3×0 pixels are left over"), "{problem}");
    assert_eq!(tileset.grid(57, 21).tiles(), 6);
    assert!(tileset.problem(10, 10).unwrap().contains("no 16×8 tile fits"));
    assert!(Tileset { tile_width: 0, ..tileset }.problem(54, 21).is_some());
}

#[test]
fn the_atlas_gives_every_tile_of_a_sheet_its_own_rectangle_and_the_mesher_uses_it() {
    // Entry a: a flat colour (1 tile); entry b: a sheet of 4 tiles. 5 + unpainted → 3×3 cells.
    let atlas = AtlasLayout::grid(&[1, 4], 10);
    assert_eq!(atlas.rects.iter().map(Vec::len).collect::<Vec<_>>(), [1, 4]);
    let cell = 1.0 / 3.0;
    let b2 = atlas.tile_rect(1, 2).unwrap();
    // b's tile 2 is atlas cell 3: the first cell of the second row.
    assert!((b2.u_min - 0.5 / 30.0).abs() < 1e-6 && (b2.v_min - (cell + 0.5 / 30.0)).abs() < 1e-6, "{b2:?}");
    assert_eq!(atlas.tile_rect(1, 4), None);
    assert_eq!(AtlasLayout::cell_of(&[1, 4], 1, 2), Some(3));

    let palette = vec![entry("a", 1), entry("b", 1)];
    let map = TileMap {
        id: Id::new("m"),
        width: 3,
        depth: 1,
        palette,
        columns: vec![
            Arc::new(Column { x: 0, y: 0, tiles: vec![painted(Paint::new("b", 2))] }),
            Arc::new(Column { x: 1, y: 0, tiles: vec![painted(Paint::new("b", 7))] }),
            Arc::new(Column { x: 2, y: 0, tiles: vec![painted(Paint::new("gone", 0))] }),
        ],
        ..TileMap::default()
    };
    let style = MeshStyle { scale: MapScale::default(), ..MeshStyle::of(&map, atlas.clone()) };
    let mesher = MapMesher::new(&TileGrid::from_map(&map).unwrap(), style);
    let buffers = &mesher.chunks()[0].opaque;
    let inside = |rect: actforge_runtime::map::UvRect, [u, v]: [f32; 2]| {
        (rect.u_min..=rect.u_max).contains(&u) && (rect.v_min..=rect.v_max).contains(&v)
    };
    let tops: Vec<([f32; 3], [f32; 2])> = (0..buffers.positions.len())
        .filter(|at| buffers.normals[*at] == [0.0, 0.0, 1.0])
        .map(|at| (buffers.positions[at], buffers.uvs[at]))
        .collect();
    assert_eq!(tops.len(), 12);
    for (position, uv) in tops {
        let expected = if position[0] < 1.0 || (position[0] == 1.0 && inside(b2, uv)) { b2 } else { atlas.unpainted };
        assert!(inside(expected, uv), "{position:?} {uv:?}");
    }
}

const OLD_MAP: &str = r##"(
    id: "old",
    width: 2,
    depth: 1,
    palette: [
        (label: "Grass", colour: "#5d8c3aff"),
        (label: "Rock Face", colour: "#7d7d7dff"),
        (id: "grass", label: "Other", colour: "#000000ff"),
    ],
    columns: [
        (x: 0, y: 0, tiles: [(z: 0, paint: (neg_x: Some(1), top: Some(0)))]),
        (x: 1, y: 0, tiles: [(z: 0, paint: (top: Some(2), bottom: Some(9)))]),
    ],
)
"##;

#[test]
fn old_index_paint_migrates_on_load_with_one_warning() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("project.ron"), "(name: \"old\", schema_version: 1)").unwrap();
    std::fs::create_dir_all(folder.path().join("tile_maps")).unwrap();
    std::fs::write(folder.path().join("tile_maps/old.ron"), OLD_MAP).unwrap();
    let loaded = load_folder(folder.path()).unwrap();
    let notes: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
    let migrated: Vec<&String> = notes.iter().filter(|n| n.contains("painted by palette index")).collect();
    assert_eq!(migrated.len(), 1, "{notes:#?}");
    assert!(migrated[0].contains("2 palette entries got ids") && migrated[0].contains("4 faces"), "{notes:#?}");
    let map = loaded.project.tile_maps.get("old").unwrap();
    // Label slugs, kept unique against the id already taken.
    assert_eq!(map.palette.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["grass_2", "rock_face", "grass"]);
    let paint = |x: usize| map.columns[x].tiles[0].paint;
    assert_eq!(paint(0).top, Some(Paint::new("grass_2", 0)));
    assert_eq!(paint(0).neg_x, Some(Paint::new("rock_face", 0)));
    assert_eq!(paint(1).top, Some(Paint::new("grass", 0)));
    // Index 9 was past the palette and painted nothing: it stays unpainted.
    assert_eq!(paint(1).bottom, None);
    let written = ron::to_string(map).unwrap();
    assert!(written.contains(r#"top:Some("grass_2")"#) && !written.contains("Some(0)"), "{written}");
}

#[test]
fn dangling_ids_and_tiles_past_the_sheet_are_diagnosed_with_cell_level_and_face() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(folder.path().join("textures")).unwrap();
    // A PNG header says 40×16: 16×16 tiles leave 8 pixels over, 2 tiles.
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(40u32.to_be_bytes());
    png.extend(16u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    std::fs::write(folder.path().join("textures/sheet.png"), png).unwrap();
    let mut project = Project::new("p");
    project.tile_maps.insert(TileMap {
        id: Id::new("m"),
        width: 4,
        depth: 4,
        palette: vec![
            PaletteEntry {
                id: "sheet".into(),
                image: Some("textures/sheet.png".to_owned()),
                tileset: Some(Tileset { tile_width: 16, tile_height: 16, margin: 0, spacing: 0 }),
                ..PaletteEntry::default()
            },
            entry("sheet", 1),
            entry("Bad Id", 1),
        ],
        columns: vec![
            Arc::new(Column { x: 1, y: 2, tiles: vec![painted(Paint::new("sheet", 1))] }),
            Arc::new(Column {
                x: 2,
                y: 2,
                tiles: vec![Tile::cube(0), {
                    let mut t = painted(Paint::new("sheet", 5));
                    t.z = 1;
                    t
                }],
            }),
            Arc::new(Column { x: 3, y: 2, tiles: vec![painted(Paint::new("lava", 0))] }),
        ],
        ..TileMap::default()
    });
    let messages: Vec<String> =
        validate(&project, &Sources::default(), Some(folder.path())).into_iter().map(|d| d.to_string()).collect();
    let has = |text: &str| messages.iter().any(|message| message.contains(text));
    assert!(
        has("cell (2, 2) level 1 face top: `sheet#5` names tile 5 but the palette entry `sheet` has 2 tiles"),
        "{messages:#?}"
    );
    assert!(has("cell (3, 2) level 0 face top: `lava` names no palette entry of the map `m`"), "{messages:#?}");
    assert!(has("palette entries 0 and 1 both have the id `sheet`"), "{messages:#?}");
    assert!(has("the id `Bad Id` must start with a lowercase letter"), "{messages:#?}");
    assert!(has("8×0 pixels are left over"), "{messages:#?}");
    assert!(!has("cell (1, 2)"), "{messages:#?}");
}
