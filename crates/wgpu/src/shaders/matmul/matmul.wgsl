// Batched C = A * B, f32, with A and B read through `load_a(batch, m, k)` and
// `load_b(batch, k, n)`, which the launcher supplies: strides for matMul (so transposes and a
// broadcast batch cost nothing), an implicit im2col for convolutions. Each 8x8 workgroup
// computes a 32x32 tile of C, 4x4 outputs per thread, staging 32x32 tiles of A and B in
// workgroup memory; tiles are zero-padded at the edges, so any M, N, K (including K = 0)
// works. p0: M, p1: N, p2: K; the loaders' parameters follow. Grid: (N/32, M/32, batch).
var<workgroup> As: array<array<f32, 32>, 32>; // [m][k]
var<workgroup> Bs: array<array<f32, 32>, 32>; // [k][n]

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let M = p(0u);
    let N = p(1u);
    let K = p(2u);
    let row0 = wid.y * 32u;
    let col0 = wid.x * 32u;
    let tr = lid.y * 4u;
    let tc = lid.x * 4u;
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < K; k0 += 32u) {
        for (var t = 0u; t < 16u; t++) {
            let e = li + t * 64u;
            let r = e / 32u;
            let c = e % 32u;
            let gm = row0 + r;
            let gk = k0 + c;
            var va = 0.0;
            if (gm < M && gk < K) { va = load_a(wid.z, gm, gk); }
            As[r][c] = va;
            let bk = k0 + r;
            let bn = col0 + c;
            var vb = 0.0;
            if (bk < K && bn < N) { vb = load_b(wid.z, bk, bn); }
            Bs[r][c] = vb;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < 32u; kk++) {
            let b = vec4<f32>(Bs[kk][tc], Bs[kk][tc + 1u], Bs[kk][tc + 2u], Bs[kk][tc + 3u]);
            acc0 = fma(vec4<f32>(As[tr][kk]), b, acc0);
            acc1 = fma(vec4<f32>(As[tr + 1u][kk]), b, acc1);
            acc2 = fma(vec4<f32>(As[tr + 2u][kk]), b, acc2);
            acc3 = fma(vec4<f32>(As[tr + 3u][kk]), b, acc3);
        }
        workgroupBarrier();
    }
    let c_base = wid.z * M * N;
    var accs = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
    for (var i = 0u; i < 4u; i++) {
        let m = row0 + tr + i;
        if (m < M) {
            for (var j = 0u; j < 4u; j++) {
                let n = col0 + tc + j;
                if (n < N) { Y[c_base + m * N + n] = accs[i][j]; }
            }
        }
    }
}
