// One thread per output element [b, oz, oy, ox, co] (p0 of them) folds the window it reads
// with the launcher's `init`, `step` and `finish` (pooling, depthwise, dilation, argmax).
// p1: include the batch in argmax positions.
struct Acc { v: f32, at: i32 }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    if (i >= p(0u)) { return; }
    let co = i % p(11u);
    let pix = i / p(11u);
    let ox = pix % p(10u);
    let oy = (pix / p(10u)) % p(9u);
    let oz = (pix / (p(10u) * p(9u))) % p(8u);
    let b = pix / (p(10u) * p(9u) * p(8u));
    var acc = init();
    var count = 0u;
    for (var tz = 0u; tz < p(12u); tz++) {
        let iz = in_coord(0u, oz, tz);
        if (iz < 0) { continue; }
        for (var ty = 0u; ty < p(13u); ty++) {
            let iy = in_coord(1u, oy, ty);
            if (iy < 0) { continue; }
            for (var tx = 0u; tx < p(14u); tx++) {
                let ix = in_coord(2u, ox, tx);
                if (ix < 0) { continue; }
                acc = step(acc, b, in_pixel(b, u32(iz), u32(iy), u32(ix)), tap_of(tz, ty, tx), co);
                count++;
            }
        }
    }
    Y[i] = finish(acc, count);
}
