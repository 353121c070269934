// One pass of a row reduction: X0 seen as [rows, len]; each workgroup folds one chunk of
// `chunk` elements of one row (256 threads, strided, then a shared-memory tree) into one
// partial, Y[row * nchunks + c]. Passes repeat until rows are short, then reduce_rows
// finishes. p0: rows, p1: len, p2: nchunks, p3: chunk.
var<workgroup> sh: array<$ACC, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let g = flat(wid, nwg);
    let nchunks = p(2u);
    if (g >= p(0u) * nchunks) { return; }
    let len = p(1u);
    let row = g / nchunks;
    let start = (g % nchunks) * p(3u);
    let end = min(start + p(3u), len);
    var acc = ident();
    for (var j = start + li; j < end; j += 256u) {
        acc = comb(acc, ld0(row * len + j));
    }
    sh[li] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (li < s) {
            sh[li] = comb(sh[li], sh[li + s]);
        }
        workgroupBarrier();
    }
    if (li == 0u) {
        Y[g] = sh[0];
    }
}
