//! The tile-map view drawn by the GPU: per-chunk vertex buffers uploaded only when a chunk
//! changes, a depth buffer instead of sorting, the palette atlas sampled from egui's own GL
//! texture. The editor (safe code) packs the vertex data and says what to draw; this crate
//! holds every GL call, which is why it alone allows `unsafe` (glow's API is unsafe).
//!
//! Use: keep a [`SharedMapGl`] per view, [`MapGl::queue`] changed chunks as the scene changes,
//! and paint with [`paint_callback`] (an `egui::PaintCallback` for eframe's glow painter). The
//! GL objects are made on the first paint; [`MapGl::failure`] says when that failed (the view
//! then draws on the CPU). [`destroy_all`] frees every view's objects when the window closes.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use eframe::egui;
use eframe::egui_glow;
use eframe::glow::{self, HasContext};

/// Bytes per vertex: position (3 × f32), atlas UV (2 × f32), colour (4 × u8: sRGB, premultiplied
/// alpha, the face's shade already multiplied in, as the CPU path's egui vertices).
pub const VERTEX_BYTES: usize = 24;
/// Byte offset of the UV in a vertex.
const UV_OFFSET: i32 = 12;
/// Byte offset of the colour in a vertex.
const COLOUR_OFFSET: i32 = 20;

/// One chunk's data for the GPU, packed by the editor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkUpload {
    /// [`VERTEX_BYTES`] bytes per vertex.
    pub vertices: Vec<u8>,
    /// Triangles, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

/// What one frame draws.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawList {
    /// World → clip space, column-major (GL's order).
    pub view_projection: [f32; 16],
    /// egui's texture of the palette atlas; None: flat colours.
    pub atlas: Option<egui::TextureId>,
    /// Chunk slots drawn solid (depth written).
    pub solid: Vec<u64>,
    /// Chunk slots drawn faint over the solid ones (depth tested, not written).
    pub ghost: Vec<u64>,
    /// Opacity of the ghost pass (0..=1).
    pub ghost_alpha: f32,
}

/// One chunk's GL objects.
struct GpuChunk {
    vertex_array: glow::VertexArray,
    vertices: glow::Buffer,
    indices: glow::Buffer,
    index_count: i32,
}

/// The linked program and its uniforms.
struct Shader {
    linked: glow::Program,
    view_projection: Option<glow::UniformLocation>,
    atlas: Option<glow::UniformLocation>,
    alpha: Option<glow::UniformLocation>,
    textured: Option<glow::UniformLocation>,
}

/// A view's GL side: the chunks waiting to be uploaded and, once made, the GL objects.
#[derive(Default)]
pub struct MapGl {
    /// Slot → new data (None: delete the slot), taken in at the next paint.
    pending: BTreeMap<u64, Option<ChunkUpload>>,
    /// Drop every uploaded chunk before taking in `pending` (a new scene).
    clear: bool,
    /// The context the objects were made in (None: not made yet, or destroyed).
    gl: Option<Arc<glow::Context>>,
    program: Option<Shader>,
    chunks: BTreeMap<u64, GpuChunk>,
    failure: Option<String>,
    /// Chunk uploads done so far (for the status line and tests).
    uploads: u64,
}

impl std::fmt::Debug for MapGl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapGl")
            .field("pending", &self.pending.len())
            .field("chunks", &self.chunks.len())
            .field("failure", &self.failure)
            .field("uploads", &self.uploads)
            .finish_non_exhaustive()
    }
}

/// A view's [`MapGl`], shared with the paint callbacks.
pub type SharedMapGl = Arc<Mutex<MapGl>>;

/// Every live [`MapGl`], so that [`destroy_all`] can free them while the context still exists.
static LIVE: Mutex<Vec<Weak<Mutex<MapGl>>>> = Mutex::new(Vec::new());

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data behind: still usable.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A new, empty [`SharedMapGl`] (no GL objects until its first paint).
pub fn shared() -> SharedMapGl {
    let map_gl = Arc::new(Mutex::new(MapGl::default()));
    let mut live = lock(&LIVE);
    live.retain(|weak| weak.strong_count() > 0);
    live.push(Arc::downgrade(&map_gl));
    map_gl
}

/// Frees the GL objects of every view (call from `eframe::App::on_exit`, while the context lives).
pub fn destroy_all(gl: &glow::Context) {
    for weak in std::mem::take(&mut *lock(&LIVE)) {
        if let Some(map_gl) = weak.upgrade() {
            lock(&map_gl).destroy_in(gl);
        }
    }
}

impl MapGl {
    /// Queues `upload` for `slot` (None: the slot is deleted); a later queue for the same
    /// slot replaces an earlier one not yet taken in.
    pub fn queue(&mut self, slot: u64, upload: Option<ChunkUpload>) {
        self.pending.insert(slot, upload);
    }

    /// Forgets every chunk (uploaded or queued): the next queued ones make a new scene.
    pub fn clear(&mut self) {
        self.pending.clear();
        self.clear = true;
    }

    /// Chunks waiting for the next paint.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether the GL objects have been made (a frame was painted).
    pub fn is_ready(&self) -> bool {
        self.program.is_some()
    }

    /// Chunk uploads done so far.
    pub fn uploads(&self) -> u64 {
        self.uploads
    }

    /// Why the GL objects could not be made (the shader did not compile, …); None: fine so far.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Makes the program on first use; false (with [`MapGl::failure`] set) when it cannot be.
    fn ensure_program(&mut self, gl: &Arc<glow::Context>) -> bool {
        if self.failure.is_some() {
            return false;
        }
        if self.program.is_none() {
            match make_program(gl) {
                Ok(program) => {
                    self.program = Some(program);
                    self.gl = Some(Arc::clone(gl));
                }
                Err(why) => {
                    eprintln!("warning: the GPU map view is off, drawing on the CPU: {why}");
                    self.failure = Some(why);
                    return false;
                }
            }
        }
        true
    }

    /// Takes in the queued chunks.
    fn upload_pending(&mut self, gl: &glow::Context) {
        if std::mem::take(&mut self.clear) {
            for (_, chunk) in std::mem::take(&mut self.chunks) {
                delete_chunk(gl, &chunk);
            }
        }
        for (slot, upload) in std::mem::take(&mut self.pending) {
            if let Some(old) = self.chunks.remove(&slot) {
                delete_chunk(gl, &old);
            }
            let Some(upload) = upload else { continue };
            if upload.indices.is_empty() {
                continue;
            }
            match make_chunk(gl, &upload) {
                Ok(chunk) => {
                    self.chunks.insert(slot, chunk);
                    self.uploads += 1;
                }
                Err(why) => {
                    eprintln!("warning: the GPU map view is off, drawing on the CPU: {why}");
                    self.failure = Some(why);
                    return;
                }
            }
        }
    }

    /// Draws `list` into the callback's viewport (egui's painter set it and the scissor).
    fn paint(&mut self, info: &egui::PaintCallbackInfo, painter: &egui_glow::Painter, list: &DrawList) {
        let gl = painter.gl();
        if !self.ensure_program(gl) {
            return;
        }
        self.upload_pending(gl);
        let Some(program) = &self.program else { return };
        let atlas = list.atlas.and_then(|id| painter.texture(id));
        let _ = info;
        // SAFETY: called from egui_glow's paint callback, so the context is current on this
        // thread; every object used was made in it by this struct and is still alive (deleted
        // only through `delete_chunk`/`destroy_in`, which also drop them from the maps).
        unsafe {
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LEQUAL);
            gl.depth_mask(true);
            gl.clear_depth_f32(1.0);
            // Only inside the scissor (the view's clip rectangle), which egui's painter set.
            gl.clear(glow::DEPTH_BUFFER_BIT);
            // Faces seen from behind are not drawn, as on the CPU (which matters for ghosts).
            gl.enable(glow::CULL_FACE);
            gl.cull_face(glow::BACK);
            gl.front_face(glow::CCW);
            gl.use_program(Some(program.linked));
            gl.uniform_matrix_4_f32_slice(program.view_projection.as_ref(), false, &list.view_projection);
            gl.uniform_1_i32(program.atlas.as_ref(), 0);
            gl.uniform_1_f32(program.textured.as_ref(), if atlas.is_some() { 1.0 } else { 0.0 });
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, atlas);
            gl.uniform_1_f32(program.alpha.as_ref(), 1.0);
            for slot in &list.solid {
                if let Some(chunk) = self.chunks.get(slot) {
                    draw_chunk(gl, chunk);
                }
            }
            if !list.ghost.is_empty() {
                gl.depth_mask(false);
                gl.uniform_1_f32(program.alpha.as_ref(), list.ghost_alpha);
                for slot in &list.ghost {
                    if let Some(chunk) = self.chunks.get(slot) {
                        draw_chunk(gl, chunk);
                    }
                }
            }
            // Leave what egui's painter does not set again itself as it was.
            gl.bind_vertex_array(None);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.depth_mask(true);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
        }
    }

    /// Deletes every GL object (made in `gl`).
    fn destroy_in(&mut self, gl: &glow::Context) {
        for (_, chunk) in std::mem::take(&mut self.chunks) {
            delete_chunk(gl, &chunk);
        }
        if let Some(program) = self.program.take() {
            // SAFETY: the program was made in this context and is deleted once (taken out).
            unsafe { gl.delete_program(program.linked) };
        }
        self.gl = None;
    }
}

impl Drop for MapGl {
    /// A view closed while the window stays: its objects go with it. After [`destroy_all`]
    /// there is nothing left (and no context is touched).
    fn drop(&mut self) {
        if let Some(gl) = self.gl.take() {
            self.destroy_in(&gl);
        }
    }
}

/// The paint callback drawing `list` with `map_gl`'s chunks, for `rect` (the view).
pub fn paint_callback(rect: egui::Rect, map_gl: &SharedMapGl, list: DrawList) -> egui::PaintCallback {
    let map_gl = Arc::clone(map_gl);
    egui::PaintCallback {
        rect,
        callback: Arc::new(egui_glow::CallbackFn::new(move |info, painter| {
            lock(&map_gl).paint(&info, painter, &list);
        })),
    }
}

/// Bits of the window's depth buffer (0: none).
pub fn depth_bits(gl: &glow::Context) -> u32 {
    // SAFETY: plain queries on the context eframe made current for the app's creation.
    unsafe {
        // The default framebuffer's attachment (core profiles); DEPTH_BITS where that is refused.
        let _ = gl.get_error();
        let bits = gl.get_framebuffer_attachment_parameter_i32(
            glow::FRAMEBUFFER,
            glow::DEPTH,
            glow::FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE,
        );
        if gl.get_error() == glow::NO_ERROR {
            return bits.max(0) as u32;
        }
        let bits = gl.get_parameter_i32(glow::DEPTH_BITS);
        if gl.get_error() == glow::NO_ERROR { bits.max(0) as u32 } else { 0 }
    }
}

/// Whether the renderer's shader compiles and links in `gl` (made and deleted again).
pub fn probe(gl: &glow::Context) -> Result<(), String> {
    let program = make_program(gl)?;
    // SAFETY: the program was just made in this context and is deleted once.
    unsafe { gl.delete_program(program.linked) };
    Ok(())
}

/// GLSL of the shaders, after the version line and the defines.
const VERTEX_SHADER: &str = r"
uniform mat4 u_view_projection;
in vec3 a_position;
in vec2 a_uv;
in vec4 a_colour;
out vec2 v_uv;
out vec4 v_colour;
void main() {
    gl_Position = u_view_projection * vec4(a_position, 1.0);
    v_uv = a_uv;
    v_colour = a_colour;
}
";

/// Texture × colour in gamma space, premultiplied, as egui's own shader does (so a face looks
/// the same as on the CPU path); the alpha uniform fades the ghosted tiles.
const FRAGMENT_SHADER: &str = r"
uniform sampler2D u_atlas;
uniform float u_alpha;
uniform float u_textured;
in vec2 v_uv;
in vec4 v_colour;
out vec4 f_colour;
void main() {
    vec4 texel = u_textured > 0.5 ? texture(u_atlas, v_uv) : vec4(1.0);
    f_colour = v_colour * texel * u_alpha;
}
";

fn make_program(gl: &glow::Context) -> Result<Shader, String> {
    let version = egui_glow::ShaderVersion::get(gl);
    if !version.is_new_shader_interface() {
        return Err(format!("the GL context's shading language is too old ({version:?})"));
    }
    let precision = if version.is_embedded() { "precision highp float;\n" } else { "" };
    let header = format!("{}{precision}", version.version_declaration());
    // SAFETY: the context is current (creation or paint callback); every object made here is
    // deleted on failure, or kept in the returned Shader.
    unsafe {
        let program = gl.create_program()?;
        let mut shaders = Vec::new();
        for (kind, source) in [(glow::VERTEX_SHADER, VERTEX_SHADER), (glow::FRAGMENT_SHADER, FRAGMENT_SHADER)] {
            let shader = match gl.create_shader(kind) {
                Ok(shader) => shader,
                Err(why) => {
                    gl.delete_program(program);
                    return Err(why);
                }
            };
            gl.shader_source(shader, &format!("{header}{source}"));
            gl.compile_shader(shader);
            if !gl.get_shader_compile_status(shader) {
                let log = gl.get_shader_info_log(shader);
                gl.delete_shader(shader);
                for shader in shaders {
                    gl.delete_shader(shader);
                }
                gl.delete_program(program);
                return Err(format!("the map shader did not compile: {log}"));
            }
            gl.attach_shader(program, shader);
            shaders.push(shader);
        }
        for (index, name) in ["a_position", "a_uv", "a_colour"].into_iter().enumerate() {
            gl.bind_attrib_location(program, index as u32, name);
        }
        gl.link_program(program);
        let linked = gl.get_program_link_status(program);
        for shader in shaders {
            gl.detach_shader(program, shader);
            gl.delete_shader(shader);
        }
        if !linked {
            let log = gl.get_program_info_log(program);
            gl.delete_program(program);
            return Err(format!("the map shader did not link: {log}"));
        }
        Ok(Shader {
            linked: program,
            view_projection: gl.get_uniform_location(program, "u_view_projection"),
            atlas: gl.get_uniform_location(program, "u_atlas"),
            alpha: gl.get_uniform_location(program, "u_alpha"),
            textured: gl.get_uniform_location(program, "u_textured"),
        })
    }
}

fn make_chunk(gl: &glow::Context, upload: &ChunkUpload) -> Result<GpuChunk, String> {
    let index_count = i32::try_from(upload.indices.len()).map_err(|_| "a chunk has too many faces".to_owned())?;
    let index_bytes: Vec<u8> = upload.indices.iter().flat_map(|index| index.to_ne_bytes()).collect();
    // SAFETY: the context is current (paint callback); the buffers are bound to the vertex
    // array made here, the attribute offsets lie inside VERTEX_BYTES, and the vertex array is
    // unbound before returning so egui's painter finds its own state.
    unsafe {
        let vertex_array = gl.create_vertex_array()?;
        let vertices = gl.create_buffer()?;
        let indices = gl.create_buffer()?;
        gl.bind_vertex_array(Some(vertex_array));
        gl.bind_buffer(glow::ARRAY_BUFFER, Some(vertices));
        gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &upload.vertices, glow::STATIC_DRAW);
        let stride = VERTEX_BYTES as i32;
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 3, glow::FLOAT, false, stride, 0);
        gl.enable_vertex_attrib_array(1);
        gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, stride, UV_OFFSET);
        gl.enable_vertex_attrib_array(2);
        gl.vertex_attrib_pointer_f32(2, 4, glow::UNSIGNED_BYTE, true, stride, COLOUR_OFFSET);
        gl.bind_buffer(glow::ELEMENT_ARRAY_BUFFER, Some(indices));
        gl.buffer_data_u8_slice(glow::ELEMENT_ARRAY_BUFFER, &index_bytes, glow::STATIC_DRAW);
        gl.bind_vertex_array(None);
        gl.bind_buffer(glow::ARRAY_BUFFER, None);
        Ok(GpuChunk { vertex_array, vertices, indices, index_count })
    }
}

fn draw_chunk(gl: &glow::Context, chunk: &GpuChunk) {
    // SAFETY: the chunk's vertex array holds its own buffers (made in this context), the index
    // count is the uploaded one, and the program is in use (see `MapGl::paint`).
    unsafe {
        gl.bind_vertex_array(Some(chunk.vertex_array));
        gl.draw_elements(glow::TRIANGLES, chunk.index_count, glow::UNSIGNED_INT, 0);
    }
}

fn delete_chunk(gl: &glow::Context, chunk: &GpuChunk) {
    // SAFETY: the objects were made in this context; the caller has dropped the chunk from its
    // map, so they are deleted once.
    unsafe {
        gl.delete_vertex_array(chunk.vertex_array);
        gl.delete_buffer(chunk.vertices);
        gl.delete_buffer(chunk.indices);
    }
}
