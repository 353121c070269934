// One optimizer update (tf.train), element by element: X0 the value, X1 the gradient, X2.. the
// rule's state. The new value and state go to one packed output, Y[j * n + i] for output j.
// p0: n; p1..8: the rule's float32 scalars (see the core's StepRule), read with c(k).
fn c(k: u32) -> f32 { return bitcast<f32>(p(1u + k)); }

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = flat(wid, nwg) * 256u + li;
    let n = p(0u);
    if (i >= n) { return; }
    let v = X0[i];
    let g = X1[i];
$BODY
}
