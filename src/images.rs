//! Image files for `tf.node`: PNG, JPEG, GIF and BMP decoded into int32 tensors, and PNG and
//! JPEG encoded, as tfjs-node does it with TensorFlow's kernels (`DecodeImageV2Op`,
//! `EncodePngOp`, `EncodeJpegOp`): which op decodes which format, libpng's channel conversions
//! (its ITU-R 601 grey weights, its alpha filler), libjpeg's luma output, giflib's frame
//! compositing, TensorFlow's own BMP reader, and their error texts. The formats are read by the
//! `png`, `zune-jpeg` and `gif` crates and written by `png` and `jpeg-encoder`. Every failure is
//! an `Error`; a decoded size is checked against the engine's limits before its pixels are
//! allocated.

use crate::make;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::io::Cursor;
use tidytensor_core::{bail, DType, Engine, Error as EngineError, HostData};

type Res<T> = tidytensor_core::Result<T>;

/// The decoding op tfjs-node runs (`decodeImage` picks one by the file's first bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Jpeg,
    Png,
    Gif,
    Bmp,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Jpeg => "DecodeJpeg",
            Op::Png => "DecodePng",
            Op::Gif => "DecodeGif",
            Op::Bmp => "DecodeBmp",
        }
    }
}

/// The largest decoded size allowed (`IMAGE_MAX_PIXELS`): width x height, times the frames of
/// a GIF. Checked from the header, before any pixel buffer is allocated, so a small file that
/// claims a huge image is refused instead of taking gigabytes.
#[derive(Clone, Copy)]
struct PixelLimit(f64);

impl PixelLimit {
    fn check(self, frames: usize, height: usize, width: usize) -> Res<()> {
        let pixels = frames as f64 * height as f64 * width as f64;
        if pixels > self.0 {
            let frames = if frames > 1 { format!(" in {frames} frames") } else { String::new() };
            bail!(
                "The image is {width} x {height} pixels{frames}, more than the {} pixels the IMAGE_MAX_PIXELS flag allows",
                self.0
            );
        }
        Ok(())
    }
}

/// Decoded pixels: `shape` is [height, width, channels] or [frames, height, width, channels].
struct Pixels {
    shape: Vec<usize>,
    data: Vec<u8>,
}

/// Decodes an image file into a new int32 tensor, as TensorFlow's op `args.op` does.
#[napi]
pub fn decode_image(contents: &[u8], args: DecodeArgs) -> Result<f64> {
    make(|e| decode(e, contents, &args))
}

/// A decode's op and attributes: `op` ("DecodeJpeg", "DecodePng", "DecodeGif" or "DecodeBmp");
/// `ratio`, `dct_method` and `try_recover_truncated` are DecodeJpeg's attributes;
/// `first_frame_only` gives a GIF's first frame as a 3-D tensor (tfjs-node's `decodeImage` with
/// `expandAnimations` false); `max_pixels` is the IMAGE_MAX_PIXELS flag.
#[napi(object)]
pub struct DecodeArgs {
    pub op: String,
    pub channels: i32,
    pub ratio: i32,
    pub dct_method: String,
    pub try_recover_truncated: bool,
    pub first_frame_only: bool,
    pub max_pixels: f64,
}

/// `decode_image` off the JavaScript thread (`tf.serving.decodeImage`): the file is decoded on
/// one of libuv's threads, and the Promise resolves with the tensor's id, this thread's.
#[napi(ts_return_type = "Promise<number>")]
pub fn decode_image_async(contents: Uint8Array, args: DecodeArgs) -> Result<AsyncTask<DecodeTask>> {
    let backend = crate::engine(|e| Ok(e.backend_name().unwrap_or("cpu")))?;
    Ok(AsyncTask::new(DecodeTask { contents: contents.to_vec(), backend, args }))
}

pub struct DecodeTask {
    contents: Vec<u8>,
    backend: &'static str,
    args: DecodeArgs,
}

impl Task for DecodeTask {
    type Output = tidytensor_core::Shared;
    type JsValue = f64;

    /// On a libuv thread, in its own engine; the tensor is handed over without a copy.
    fn compute(&mut self) -> Result<Self::Output> {
        crate::engine(|e| {
            tidytensor_backends::set_backend(e, self.backend)?;
            let id = decode(e, &self.contents, &self.args)?;
            let shared = e.export(id);
            e.dispose(id);
            shared
        })
    }

    fn resolve(&mut self, _: Env, output: Self::Output) -> Result<f64> {
        crate::engine(|e| Ok(e.adopt(output) as f64))
    }
}

fn decode(e: &mut Engine, contents: &[u8], args: &DecodeArgs) -> Res<tidytensor_core::TensorId> {
    let DecodeArgs { op, channels, ratio, dct_method, try_recover_truncated, first_frame_only, max_pixels } = args;
    let (channels, ratio, try_recover_truncated, first_frame_only, max_pixels) =
        (*channels, *ratio, *try_recover_truncated, *first_frame_only, *max_pixels);
    {
        let limit = PixelLimit(if max_pixels.is_nan() { 0.0 } else { max_pixels });
        let op = match op.as_str() {
            "DecodeJpeg" => Op::Jpeg,
            "DecodePng" => Op::Png,
            "DecodeGif" => Op::Gif,
            "DecodeBmp" => Op::Bmp,
            _ => bail!("Bad op type {op}"),
        };
        let jpeg = JpegFlags { ratio: 1, recover: false };
        let jpeg = if op == Op::Jpeg {
            // The kernel's constructor checks its attributes before it sees the input.
            if ![1, 2, 4, 8].contains(&ratio) {
                bail!("ratio must be 1, 2, 4, or 8, got {ratio}");
            }
            if !matches!(dct_method.as_str(), "" | "INTEGER_FAST" | "INTEGER_ACCURATE") {
                bail!("dct_method must be one of {{'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}}");
            }
            JpegFlags { ratio: ratio as usize, recover: try_recover_truncated }
        } else {
            jpeg
        };
        // DecodeGif has no `channels` attribute: it always gives RGB.
        let channels = if op == Op::Gif {
            3
        } else if matches!(channels, 0 | 1 | 3 | 4) {
            channels as usize
        } else {
            bail!("`channels` must be 0, 1, 3 or 4 but got {channels}");
        };
        if contents.is_empty() {
            bail!("Input is empty.");
        }
        if contents.len() > i32::MAX as usize {
            bail!("Input contents are too large for int: {}", contents.len());
        }
        let pixels = if contents.starts_with(b"\xff\xd8\xff") {
            decode_jpeg(e, contents, op, channels, jpeg, limit)?
        } else if contents.starts_with(b"\x89PNG\r\n\x1a\n") {
            decode_png(e, contents, op, channels, limit)?
        } else if contents.starts_with(b"GIF8") {
            decode_gif(e, contents, op, channels, first_frame_only, limit)?
        } else if contents.starts_with(b"BM") {
            decode_bmp(e, contents, op, channels, limit)?
        } else {
            bail!("Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
        };
        let values = pixels.data.iter().map(|&v| i32::from(v)).collect();
        e.tensor(HostData::I32(values), &pixels.shape)
    }
}

/// [h, w, c], or [1, h, w, c] when DecodeGif decodes a single image of another format.
fn image_shape(e: &Engine, op: Op, height: usize, width: usize, channels: usize) -> Res<Vec<usize>> {
    let shape = if op == Op::Gif { vec![1, height, width, channels] } else { vec![height, width, channels] };
    e.check_size(&shape, DType::Int32)?;
    Ok(shape)
}

// --- PNG -------------------------------------------------------------------------------------

/// libpng's RGB-to-grey weights as TensorFlow sets them (`png_set_rgb_to_gray(.., 0.299,
/// 0.587)`: ITU-R 601, in 1/32768ths, truncated as libpng truncates them).
const GRAY_R: u32 = 9797;
const GRAY_G: u32 = 19234;
const GRAY_B: u32 = 32768 - GRAY_R - GRAY_G;

fn decode_png(e: &Engine, input: &[u8], op: Op, channels: usize, limit: PixelLimit) -> Res<Pixels> {
    let init_failed = || EngineError::new("Invalid PNG. Failed to initialize decoder.");
    let data_failed = || EngineError::new(format!("Invalid PNG data, size {}", input.len()));
    // The output's size is checked against the engine's limits below, once the header is read.
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(input), png::Limits { bytes: usize::MAX });
    decoder.set_ignore_text_chunk(true);
    decoder.set_ignore_iccp_chunk(true);
    // Palettes to RGB, transparency to alpha, grey below 8 bits scaled to 8 (libpng's expand).
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|_| init_failed())?;
    let info = reader.info();
    let (width, height) = (info.width as usize, info.height as usize);
    let depth = info.bit_depth as u32;
    let has_trns = info.trns.is_some();
    if width == 0 || height == 0 {
        return Err(init_failed());
    }
    let channels = match (channels, info.color_type) {
        (0, png::ColorType::Indexed) => 3 + usize::from(has_trns),
        (0, color) => color.samples(),
        (c, _) => c,
    };
    if width >= 1 << 27 || height >= 1 << 27 || width * height >= 1 << 29 {
        bail!("PNG size too large for int: {width} by {height}");
    }
    limit.check(1, height, width)?;
    let shape = image_shape(e, op, height, width, channels)?;
    if op == Op::Bmp {
        bail!("Trying to decode PNG format using DecodeBmp op. Use `decode_png` or `decode_image` instead.");
    }
    let mut buf = vec![0; reader.output_buffer_size().ok_or_else(data_failed)?];
    let out = reader.next_frame(&mut buf).map_err(|_| data_failed())?;
    reader.finish().map_err(|_| data_failed())?;
    // libpng adds a missing alpha channel as (1 << bit depth) - 1, cut to a byte: 1 for a
    // 1-bit grey image, 15 for a 4-bit palette (TensorFlow passes the file's bit depth).
    let filler = ((1u32 << depth) - 1) as u8;
    let data = png_convert(&buf, &out, channels, filler);
    Ok(Pixels { shape, data })
}

/// Converts the expanded rows to `channels` as libpng does for TensorFlow: alpha stripped or
/// added, RGB to grey with ITU-R 601 weights (truncated for 8-bit samples, rounded for 16-bit
/// ones, as libpng does), grey to RGB by repetition, 16-bit samples cut to their high byte.
fn png_convert(buf: &[u8], out: &png::OutputInfo, channels: usize, filler: u8) -> Vec<u8> {
    let (width, height) = (out.width as usize, out.height as usize);
    let samples = out.color_type.samples();
    let wide = out.bit_depth == png::BitDepth::Sixteen;
    let (color, alpha) = (samples >= 3, samples.is_multiple_of(2));
    let (want_gray, want_alpha) = (channels < 3, channels.is_multiple_of(2));
    let row_bytes = width * samples * if wide { 2 } else { 1 };
    let mut data = Vec::with_capacity(width * height * channels);
    if !wide && samples == channels {
        // Already in the wanted layout.
        for row in buf.chunks(out.line_size).take(height) {
            data.extend_from_slice(&row[..row_bytes]);
        }
        return data;
    }
    let mut px = [0u32; 4];
    for row in buf.chunks(out.line_size).take(height) {
        let row = &row[..row_bytes];
        for x in 0..width {
            for (s, v) in px.iter_mut().enumerate().take(samples) {
                let i = x * samples + s;
                *v = if wide { u32::from(u16::from_be_bytes([row[2 * i], row[2 * i + 1]])) } else { u32::from(row[i]) };
            }
            let byte = |v: u32| if wide { (v >> 8) as u8 } else { v as u8 };
            if want_gray {
                let gray = if !color {
                    byte(px[0])
                } else if wide {
                    (((GRAY_R * px[0] + GRAY_G * px[1] + GRAY_B * px[2] + 16384) >> 15) >> 8) as u8
                } else {
                    ((GRAY_R * px[0] + GRAY_G * px[1] + GRAY_B * px[2]) >> 15) as u8
                };
                data.push(gray);
            } else if color {
                data.extend_from_slice(&[byte(px[0]), byte(px[1]), byte(px[2])]);
            } else {
                let g = byte(px[0]);
                data.extend_from_slice(&[g, g, g]);
            }
            if want_alpha {
                data.push(if alpha { byte(px[samples - 1]) } else { filler });
            }
        }
    }
    data
}

// --- JPEG ------------------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct JpegFlags {
    ratio: usize,
    recover: bool,
}

fn decode_jpeg(e: &Engine, input: &[u8], op: Op, channels: usize, flags: JpegFlags, limit: PixelLimit) -> Res<Pixels> {
    use zune_core::bytestream::ZCursor;
    use zune_core::colorspace::ColorSpace;
    use zune_core::options::DecoderOptions;
    if channels == 4 {
        bail!("JPEG does not support 4 channels");
    }
    if op == Op::Bmp {
        bail!("Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or `decode_image` instead.");
    }
    let failed = || EngineError::new("jpeg::Uncompress failed. Invalid JPEG data or crop window.");
    // TensorFlow's reader fails when it reads past the end of the data, unless asked to recover.
    if !flags.recover && !reaches_eoi(input) {
        return Err(failed());
    }
    let options = DecoderOptions::default()
        .set_strict_mode(!flags.recover)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(input), options);
    decoder.decode_headers().map_err(|_| failed())?;
    let info = decoder.info().ok_or_else(failed)?;
    let channels = if channels == 0 { usize::from(info.components) } else { channels };
    // libjpeg's grey output is the luma plane itself; a CMYK file needs an explicit 3.
    let space = match channels {
        1 => ColorSpace::Luma,
        3 => ColorSpace::RGB,
        _ => return Err(failed()),
    };
    decoder.set_options(options.jpeg_set_out_colorspace(space));
    let (width, height) = (usize::from(info.width), usize::from(info.height));
    limit.check(1, height, width)?;
    let (out_w, out_h) = (width.div_ceil(flags.ratio), height.div_ceil(flags.ratio));
    let shape = image_shape(e, op, out_h, out_w, channels)?;
    // The full-size image is held too while a ratio scales it down.
    e.check_size(&[height, width, channels], DType::Int32)?;
    let mut data = vec![0; width * height * channels];
    decoder.decode_into(&mut data).map_err(|_| failed())?;
    if flags.ratio > 1 {
        data = shrink(&data, width, height, channels, flags.ratio);
    }
    Ok(Pixels { shape, data })
}

/// Whether the file's markers lead to its end-of-image marker within the data: libjpeg reads
/// up to it, and TensorFlow's data source fails a read past the end (zune-jpeg would fill the
/// missing rows instead). Segments are skipped by their lengths, so an embedded thumbnail's
/// EOI does not count; a scan's entropy-coded data runs to the next marker that is neither a
/// stuffed zero nor a restart.
fn reaches_eoi(d: &[u8]) -> bool {
    let mut i = 2;
    loop {
        // Bytes between segments are skipped, as libjpeg skips them (with a warning).
        while i < d.len() && d[i] != 0xff {
            i += 1;
        }
        while i < d.len() && d[i] == 0xff {
            i += 1;
        }
        let Some(&marker) = d.get(i) else { return false };
        i += 1;
        match marker {
            0xd9 => return true,
            0x00 | 0x01 | 0xd0..=0xd7 => continue,
            _ => {}
        }
        let Some(len) = d.get(i..i + 2).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]]))) else {
            return false;
        };
        i += len.max(2);
        if marker == 0xda {
            loop {
                match (d.get(i), d.get(i + 1)) {
                    (Some(0xff), Some(&next)) if next != 0 && next != 0xff && !(0xd0..=0xd7).contains(&next) => break,
                    (Some(_), Some(_)) => i += 1,
                    _ => return false,
                }
            }
        }
    }
}

/// libjpeg's DCT scaling (`scale_denom` = `ratio`), approximated by the mean of each
/// `ratio` × `ratio` block (exact for the DC term libjpeg keeps at 1/8), rounded.
fn shrink(data: &[u8], width: usize, height: usize, channels: usize, ratio: usize) -> Vec<u8> {
    let (out_w, out_h) = (width.div_ceil(ratio), height.div_ceil(ratio));
    let mut out = Vec::with_capacity(out_w * out_h * channels);
    for oy in 0..out_h {
        let rows = oy * ratio..((oy + 1) * ratio).min(height);
        for ox in 0..out_w {
            let cols = ox * ratio..((ox + 1) * ratio).min(width);
            let n = (rows.len() * cols.len()) as u32;
            for c in 0..channels {
                let mut sum = 0u32;
                for y in rows.clone() {
                    for x in cols.clone() {
                        sum += u32::from(data[(y * width + x) * channels + c]);
                    }
                }
                out.push(((sum + n / 2) / n) as u8);
            }
        }
    }
    out
}

// --- GIF -------------------------------------------------------------------------------------

struct GifFrame {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    indices: Vec<u8>,
    palette: Option<Vec<u8>>,
    transparent: Option<u8>,
}

fn decode_gif(e: &Engine, input: &[u8], op: Op, channels: usize, first_only: bool, limit: PixelLimit) -> Res<Pixels> {
    if channels != 0 && channels != 3 {
        bail!("channels must be 0 or 3 for GIF, got {channels}");
    }
    if op == Op::Bmp {
        bail!("Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or `decode_image` instead.");
    }
    let invalid = |msg: String| EngineError::new(format!("Invalid GIF data (size {}), {msg}", input.len()));
    let slurp_failed = |err: gif::DecodingError| {
        let msg = err.to_string();
        invalid(if msg.contains("color table") {
            "missing color map".into()
        } else {
            format!("failed to slurp gif file: {msg}")
        })
    };
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    // Sizes are checked here, frame by frame, against the engine's limits.
    options.set_memory_limit(gif::MemoryLimit::Unlimited);
    // giflib opens a file by its header, logical screen and global palette; the gif crate reads
    // on to the first frame, whose failure giflib reports as a failure to "slurp" the file.
    let screen = match input.get(10) {
        Some(&flags) if flags & 0x80 != 0 => 13 + 3 * (2 << (flags & 7)),
        _ => 13,
    };
    let mut decoder = options.read_info(Cursor::new(input)).map_err(|err| {
        if input.len() < screen {
            invalid("failed to open gif file: No screen descriptor detected".into())
        } else {
            slurp_failed(err)
        }
    })?;
    let global = decoder.global_palette().map(<[u8]>::to_vec);
    let mut frames: Vec<GifFrame> = Vec::new();
    let (mut width, mut height) = (0, 0);
    // giflib keeps the frames read before an error (TensorFlow logs it and goes on); so does
    // this, without the frame the error cut short.
    loop {
        let frame = match decoder.next_frame_info() {
            Ok(Some(f)) => GifFrame {
                left: usize::from(f.left),
                top: usize::from(f.top),
                width: usize::from(f.width),
                height: usize::from(f.height),
                indices: Vec::new(),
                palette: f.palette.clone(),
                transparent: f.transparent,
            },
            Ok(None) => break,
            Err(err) if frames.is_empty() => return Err(slurp_failed(err)),
            Err(_) => break,
        };
        // TensorFlow sizes the output by the largest frame, not by the logical screen.
        width = width.max(frame.width);
        height = height.max(frame.height);
        let count = if first_only { 1 } else { frames.len() + 1 };
        limit.check(count, height, width)?;
        e.check_size(&[count, height, width, 3], DType::Int32)?;
        let mut indices = vec![0; frame.width * frame.height];
        match decoder.read_into_buffer(&mut indices) {
            Ok(()) => frames.push(GifFrame { indices, ..frame }),
            Err(err) if frames.is_empty() => return Err(slurp_failed(err)),
            Err(_) => break,
        }
    }
    if frames.is_empty() {
        return Err(invalid("failed to slurp gif file: No Image Descriptor detected".into()));
    }
    let n = frames.len();
    let shape = match op {
        Op::Png | Op::Jpeg if n > 1 => {
            bail!("Got {n} frames, but animated gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image")
        }
        Op::Png | Op::Jpeg => vec![height, width, 3],
        _ if first_only => vec![height, width, 3],
        _ => vec![n, height, width, 3],
    };
    let render = if first_only { 1 } else { n };
    let plane = width * height * 3;
    let mut data = vec![0u8; render * plane];
    for (k, f) in frames.iter().take(render).enumerate() {
        // Each frame starts from the one before (no disposal, as in TensorFlow's gif_io);
        // transparent pixels keep it, or stay black in the first frame.
        if k > 0 {
            data.copy_within((k - 1) * plane..k * plane, k * plane);
        }
        let palette = f.palette.as_deref().or(global.as_deref()).ok_or_else(|| invalid("missing color map".into()))?;
        let colors = palette.len() / 3;
        let dst = &mut data[k * plane..(k + 1) * plane];
        for y in f.top..(f.top + f.height).min(height) {
            for x in f.left..(f.left + f.width).min(width) {
                let index = f.indices[(y - f.top) * f.width + (x - f.left)];
                if Some(index) == f.transparent {
                    continue;
                }
                if usize::from(index) >= colors {
                    return Err(invalid(format!("found color index {index} outside of color map range {colors}")));
                }
                let at = (y * width + x) * 3;
                dst[at..at + 3].copy_from_slice(&palette[usize::from(index) * 3..usize::from(index) * 3 + 3]);
            }
        }
    }
    Ok(Pixels { shape, data })
}

// --- BMP -------------------------------------------------------------------------------------

/// TensorFlow's own BMP reader: uncompressed 8-, 24- and 32-bit rows (an 8-bit file's bytes
/// are taken as grey values, its palette unread), BGR(A) to RGB(A), bottom-up unless the
/// height is negative, and a file exactly as long as its header says.
fn decode_bmp(e: &Engine, input: &[u8], op: Op, channels: usize, limit: PixelLimit) -> Res<Pixels> {
    if channels == 1 {
        bail!("`channels` must be 0, 3 or 4 for BMP, but got 1");
    }
    if op != Op::Bmp {
        bail!(
            "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. Op used: {}",
            op.name()
        );
    }
    if input.len() < 32 {
        bail!(
            "Incomplete bmp content, requires at least 32 bytes to find the header size, width, height, and bpp, got {} bytes",
            input.len()
        );
    }
    let int32 = |at: usize| i64::from(i32::from_le_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]]));
    let (header_size, width, height) = (int32(10), int32(18), int32(22));
    let bpp = i64::from(i16::from_le_bytes([input[28], input[29]]));
    let img_channels = bpp / 8;
    if !matches!(img_channels, 1 | 3 | 4) {
        bail!("Number of channels inherent in the image must be 1, 3 or 4, was {img_channels}");
    }
    let channels = if channels == 0 { img_channels as usize } else { channels };
    if width <= 0 {
        bail!("Width must be positive");
    }
    if height == 0 {
        bail!("Height must be nonzero");
    }
    if header_size < 0 {
        bail!("header size must be nonnegative");
    }
    if width * img_channels >= 1 << 27 {
        bail!("width must be < 2^27 / {img_channels}");
    }
    let abs_height = height.abs();
    let row_size = (img_channels * width + 3) / 4 * 4;
    let size_diff = input.len() as i64 - header_size - row_size * abs_height;
    if size_diff != 0 {
        bail!("Input size should match (header_size + row_size * abs_height) but they differ by {size_diff}");
    }
    let (width, abs_height, row_size, img_channels) =
        (width as usize, abs_height as usize, row_size as usize, img_channels as usize);
    limit.check(1, abs_height, width)?;
    let shape = vec![abs_height, width, channels];
    e.check_size(&shape, DType::Int32)?;
    let pixels = &input[header_size as usize..];
    let mut data = Vec::with_capacity(abs_height * width * channels);
    for y in 0..abs_height {
        let src_row = if height < 0 { y } else { abs_height - 1 - y };
        let row = &pixels[src_row * row_size..src_row * row_size + width * img_channels];
        for p in row.chunks_exact(img_channels) {
            match img_channels {
                1 => data.extend(std::iter::repeat_n(p[0], channels.min(3))),
                _ => data.extend_from_slice(&[p[2], p[1], p[0]]),
            }
            if channels == 4 {
                data.push(if img_channels == 4 { p[3] } else { u8::MAX });
            }
        }
    }
    Ok(Pixels { shape, data })
}

// --- Encoding --------------------------------------------------------------------------------

/// A float32, int32 or bool tensor's values as the bytes tfjs-node encodes:
/// `new Uint8Array(await image.data())`, that is each value truncated, modulo 256 (NaN and
/// ±Infinity as 0), without the int32 copy and the conversion in JavaScript.
#[napi]
pub fn image_bytes(x: f64) -> Result<Uint8Array> {
    let bytes = crate::engine(|e| {
        e.read_with(crate::id(x), |data| match data {
            HostData::F32(v) => {
                v.iter().map(|&f| if f.is_finite() { f.trunc().rem_euclid(256.0) as u8 } else { 0 }).collect()
            }
            HostData::I32(v) => v.iter().map(|&i| i as u8).collect(),
            HostData::Bool(v) => v.clone(),
        })
    })?;
    Ok(Uint8Array::new(bytes))
}

/// TensorFlow's shape text (`TensorShape::DebugString`): `[2,3,4]`.
fn shape_text(shape: &[f64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(","))
}

/// The element count of a shape JavaScript checked (non-negative integers), or None past i32.
fn elements(shape: &[f64]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d as usize)).filter(|&n| n < i32::MAX as usize)
}

/// Encodes `data` (the tensor's values as bytes, shape `shape`) as a PNG, as TensorFlow's
/// EncodePng does: the first image of a batch, 1 to 4 channels, zlib level -1 to 9.
#[napi]
pub fn encode_png(data: &[u8], shape: Vec<f64>, compression: i32) -> Result<Uint8Array> {
    let run = || -> Res<Vec<u8>> {
        if !(-1..=9).contains(&compression) {
            bail!("compression should be in [-1,9], got {compression}");
        }
        if shape.len() < 3 {
            bail!("images must be at least rank 3{}", shape_text(&shape));
        }
        let Some(total) = elements(&shape) else { bail!("image cannot have >= int32 max elements") };
        let r = shape.len();
        let (height, width, channels) = (shape[r - 3] as usize, shape[r - 2] as usize, shape[r - 1] as usize);
        if !(1..=4).contains(&channels) {
            bail!("image must have 1, 2, 3, or 4 channels, got {channels}");
        }
        let failed = || EngineError::new("PNG encoding failed");
        let size = height * width * channels;
        if height == 0 || width == 0 || total == 0 || data.len() < size {
            return Err(failed());
        }
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width as u32, height as u32);
        encoder.set_color(match channels {
            1 => png::ColorType::Grayscale,
            2 => png::ColorType::GrayscaleAlpha,
            3 => png::ColorType::Rgb,
            _ => png::ColorType::Rgba,
        });
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(match compression {
            0 => png::Compression::NoCompression,
            1 => png::Compression::Fast,
            _ => png::Compression::Balanced,
        });
        if compression >= 2 {
            encoder.set_deflate_compression(png::DeflateCompression::Level(compression as u8));
        }
        let mut writer = encoder.write_header().map_err(|_| failed())?;
        writer.write_image_data(&data[..size]).map_err(|_| failed())?;
        writer.finish().map_err(|_| failed())?;
        Ok(out)
    };
    // Through the engine's guard, so that an encoder's panic is an Error too.
    crate::engine(|_| run()).map(Uint8Array::new)
}

/// Encodes `data` (shape [height, width, channels]) as a JPEG with TensorFlow's EncodeJpeg
/// attributes: format '', 'grayscale' or 'rgb'; quality 0-100; progressive; optimized Huffman
/// tables (`optimize_size`); 4:2:0 chroma (`chroma_downsampling`) or 4:4:4; the JFIF density;
/// an XMP packet in APP1.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn encode_jpeg(
    data: &[u8],
    shape: Vec<f64>,
    format: String,
    quality: i32,
    progressive: bool,
    optimize_size: bool,
    chroma_downsampling: bool,
    density_unit: String,
    x_density: i32,
    y_density: i32,
    xmp_metadata: String,
) -> Result<Uint8Array> {
    let run = || -> Res<Vec<u8>> {
        if !matches!(format.as_str(), "" | "grayscale" | "rgb") {
            bail!("Value for attr 'format' of \"{format}\" is not in the list of allowed values: \"\", \"grayscale\", \"rgb\"");
        }
        let unit = match density_unit.as_str() {
            "in" => jpeg_encoder::PixelDensityUnit::Inches,
            "cm" => jpeg_encoder::PixelDensityUnit::Centimeters,
            _ => bail!(
                "Value for attr 'density_unit' of \"{density_unit}\" is not in the list of allowed values: \"in\", \"cm\""
            ),
        };
        if !(0..=100).contains(&quality) {
            bail!("quality must be in [0,100], got {quality}");
        }
        if shape.len() != 3 {
            bail!("image must be 3-dimensional{}", shape_text(&shape));
        }
        if elements(&shape).is_none() {
            bail!("Cannot encode images with >= max int32 elements");
        }
        let (height, width, channels) = (shape[0] as usize, shape[1] as usize, shape[2] as usize);
        let color = match (format.as_str(), channels) {
            ("", 1) => jpeg_encoder::ColorType::Luma,
            ("", 3) => jpeg_encoder::ColorType::Rgb,
            ("", _) => bail!("image must have 1 or 3 channels, got {}", shape_text(&shape)),
            ("grayscale", 1) => jpeg_encoder::ColorType::Luma,
            ("rgb", 3) => jpeg_encoder::ColorType::Rgb,
            (f, _) => {
                let want = if f == "grayscale" { 1 } else { 3 };
                bail!("format {f} expects {want} channels, got {}", shape_text(&shape))
            }
        };
        let failed = || EngineError::new("JPEG encoding failed");
        // libjpeg's largest dimension is 65500.
        if height == 0 || width == 0 || height > 65500 || width > 65500 || data.len() < height * width * channels {
            return Err(failed());
        }
        let mut out = Vec::new();
        // libjpeg reads quality 0 as 1.
        let mut encoder = jpeg_encoder::Encoder::new(&mut out, quality.max(1) as u8);
        encoder.set_sampling_factor(if chroma_downsampling {
            jpeg_encoder::SamplingFactor::F_2_2
        } else {
            jpeg_encoder::SamplingFactor::F_1_1
        });
        encoder.set_progressive(progressive);
        // jpeg-encoder writes optimized tables with one scan per component, which zune-jpeg
        // 0.5.15 misreads when the chroma is subsampled (0.5.16 reads it): such a file keeps the
        // standard tables, so that every JPEG written here decodes here.
        encoder.set_optimized_huffman_tables(optimize_size && (progressive || !chroma_downsampling));
        encoder.set_density(jpeg_encoder::PixelDensity { density: (x_density as u16, y_density as u16), unit });
        if !xmp_metadata.is_empty() {
            let mut packet = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
            packet.extend_from_slice(xmp_metadata.as_bytes());
            encoder.add_app_segment(1, packet).map_err(|_| failed())?;
        }
        encoder.encode(&data[..height * width * channels], width as u16, height as u16, color).map_err(|_| failed())?;
        Ok(out)
    };
    // Through the engine's guard, so that an encoder's panic is an Error too.
    crate::engine(|_| run()).map(Uint8Array::new)
}
