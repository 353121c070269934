//! Graphs with control flow and dynamic ops (`Graph::execute_async`, tfjs's `executeAsync`) on
//! every backend: a while loop (Enter, Merge, LoopCond, Switch, NextIteration, Exit), a
//! conditional (Switch, Merge), non-max suppression, Where, ListDiff, a TensorArray written in
//! a loop, TensorLists; values against hand-computed ones, an execution adds only its outputs
//! (also over many runs), errors leave nothing behind, and `execute` refuses these graphs as
//! tfjs does.

use serde_json::{json, Value};
use tidytensor_core::{DType, Engine, TensorId};
use tidytensor_graph::{Graph, Limits, DEFAULT_MAX_CALL_DEPTH};

mod common;
use common::{b64, konst, node, placeholder};
use tidytensor_suite::{assert_close, backend_tests, bools, f32s, fails, i32s, usage};

fn frame(name: &str, constant: bool) -> Value {
    json!({"frame_name": {"s": b64(name)}, "is_constant": {"b": constant}, "T": {"type": "DT_FLOAT"}})
}

fn load(e: &mut Engine, nodes: Vec<Value>, weights: Vec<(&str, TensorId)>) -> Graph {
    let w: Vec<(String, TensorId)> = weights.into_iter().map(|(n, t)| (n.to_string(), t)).collect();
    let topology = json!({"node": nodes, "versions": {"producer": 1}}).to_string();
    Graph::load(e, &topology, &w).expect("load")
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn try_async(
    e: &mut Engine,
    g: &Graph,
    feeds: &[(&str, TensorId)],
    outputs: &[&str],
) -> tidytensor_core::Result<Vec<TensorId>> {
    let f: Vec<(String, TensorId)> = feeds.iter().map(|(n, t)| (n.to_string(), *t)).collect();
    g.execute_async(e, &f, &strings(outputs))
}

/// Runs with control flow, checks that the run added exactly its outputs, returns their
/// (shape, dtype, values).
fn run_async(
    e: &mut Engine,
    g: &Graph,
    feeds: &[(&str, TensorId)],
    outputs: &[&str],
) -> Vec<(Vec<usize>, DType, Vec<f64>)> {
    let before = e.memory().num_tensors;
    let ids = try_async(e, g, feeds, outputs).expect("execute_async");
    assert_eq!(e.memory().num_tensors, before + ids.len(), "an execution adds only its outputs");
    let out = ids
        .iter()
        .map(|&id| (e.shape(id).unwrap().to_vec(), e.dtype(id).unwrap(), e.read(id).unwrap().to_f64()))
        .collect();
    for id in ids {
        e.dispose(id);
    }
    out
}

/// `acc = 0; for (i = 0; i < n; i++) acc += i * x`, as TensorFlow 1 lowers a while loop:
/// outputs 'count' (i at the end, int32) and 'out' (acc, float32).
fn while_loop(e: &mut Engine) -> Graph {
    while_loop_with(e, "Mul")
}

/// The while loop of [`while_loop`] with `mul_op` as its multiplication's op.
fn while_loop_with(e: &mut Engine, mul_op: &str) -> Graph {
    let zero_i = i32s(e, &[0], &[]);
    let zero_f = f32s(e, &[0.0], &[]);
    let one = i32s(e, &[1], &[]);
    let t = |d: &str| json!({"T": {"type": d}});
    load(
        e,
        vec![
            placeholder("x", &[], "DT_FLOAT"),
            placeholder("n", &[], "DT_INT32"),
            konst("zero_i", "DT_INT32"),
            konst("zero_f", "DT_FLOAT"),
            konst("one", "DT_INT32"),
            node("while/Enter", "Enter", &["zero_i"], frame("while/while_context", false)),
            node("while/Enter_1", "Enter", &["zero_f"], frame("while/while_context", false)),
            node("while/Enter_2", "Enter", &["n"], frame("while/while_context", true)),
            node("while/Enter_3", "Enter", &["x"], frame("while/while_context", true)),
            node("while/Merge", "Merge", &["while/Enter", "while/NextIteration"], t("DT_INT32")),
            node("while/Merge_1", "Merge", &["while/Enter_1", "while/NextIteration_1"], t("DT_FLOAT")),
            node("while/Less", "Less", &["while/Merge", "while/Enter_2"], t("DT_INT32")),
            node("while/LoopCond", "LoopCond", &["while/Less"], json!({})),
            node("while/Switch", "Switch", &["while/Merge", "while/LoopCond"], t("DT_INT32")),
            node("while/Switch_1", "Switch", &["while/Merge_1", "while/LoopCond"], t("DT_FLOAT")),
            node("while/Identity", "Identity", &["while/Switch:1"], t("DT_INT32")),
            node("while/Identity_1", "Identity", &["while/Switch_1:1"], t("DT_FLOAT")),
            node("while/add", "AddV2", &["while/Identity", "one"], t("DT_INT32")),
            node(
                "while/Cast",
                "Cast",
                &["while/Identity"],
                json!({"SrcT": {"type": "DT_INT32"}, "DstT": {"type": "DT_FLOAT"}}),
            ),
            node("while/mul", mul_op, &["while/Cast", "while/Enter_3"], t("DT_FLOAT")),
            node("while/add_1", "AddV2", &["while/Identity_1", "while/mul"], t("DT_FLOAT")),
            node("while/NextIteration", "NextIteration", &["while/add"], t("DT_INT32")),
            node("while/NextIteration_1", "NextIteration", &["while/add_1"], t("DT_FLOAT")),
            node("while/Exit", "Exit", &["while/Switch"], t("DT_INT32")),
            node("while/Exit_1", "Exit", &["while/Switch_1"], t("DT_FLOAT")),
            node("count", "Identity", &["while/Exit"], t("DT_INT32")),
            node("out", "Identity", &["while/Exit_1"], t("DT_FLOAT")),
        ],
        vec![("zero_i", zero_i), ("zero_f", zero_f), ("one", one)],
    )
}

fn while_loops(e: &mut Engine) {
    let before = usage(e);
    let mut g = while_loop(e);
    assert!(g.control_flow());
    let loaded = usage(e);
    let x = f32s(e, &[2.0], &[]);
    for (n, want) in [(4, 12.0), (0, 0.0), (1, 0.0), (10, 90.0)] {
        let nt = i32s(e, &[n], &[]);
        let out = run_async(e, &g, &[("x", x), ("n", nt)], &["out", "count"]);
        assert_eq!(out[0], (vec![], DType::Float32, vec![want]), "n = {n}");
        assert_eq!(out[1], (vec![], DType::Int32, vec![n as f64]), "n = {n}");
        e.dispose(nt);
    }
    // execute() refuses it, as tfjs does.
    let nt = i32s(e, &[3], &[]);
    let f: Vec<(String, TensorId)> = vec![("x".into(), x), ("n".into(), nt)];
    fails(e, "This execution contains the node 'while/Exit_1', which has the dynamic op 'Exit'. Please use model.executeAsync() instead. Alternatively, to avoid the dynamic ops, specify the inputs [out]", |e| {
        g.execute(e, &f, &strings(&["out"]))
    });
    // Many runs leave nothing behind; a long loop frees each iteration's tensors as it goes
    // (the engine's count stays small is not observable here; the end state is).
    let mid = usage(e);
    for _ in 0..50 {
        let ids = try_async(e, &g, &[("x", x), ("n", nt)], &["out"]).unwrap();
        e.dispose(ids[0]);
    }
    assert_eq!(usage(e), mid);
    let big = i32s(e, &[500], &[]);
    let out = run_async(e, &g, &[("x", x), ("n", big)], &["out", "count"]);
    assert_eq!(out[0].2, [2.0 * 500.0 * 499.0 / 2.0]);
    assert_eq!(out[1].2, [500.0]);
    // Missing an input: tfjs's text, nothing left behind.
    fails(e, "Cannot compute the outputs [out] from the provided inputs [x]. Consider providing the following inputs: [n]. Alternatively, to avoid the dynamic ops, use model.execute() and specify the inputs [out]", |e| {
        try_async(e, &g, &[("x", x)], &["out"])
    });
    for t in [x, nt, big] {
        e.dispose(t);
    }
    assert_eq!(usage(e), loaded);
    g.dispose(e);
    assert_eq!(usage(e), before);
}

/// `pred ? relu(x) * 2 : -x`, as tf.cond lowers to Switch and Merge (with a Switch of the
/// weight `two` into the true branch, as TensorFlow does for constants used in a branch).
fn conditionals(e: &mut Engine) {
    let two = f32s(e, &[2.0], &[]);
    let t = json!({"T": {"type": "DT_FLOAT"}});
    let mut g = load(
        e,
        vec![
            placeholder("x", &[-1], "DT_FLOAT"),
            placeholder("pred", &[], "DT_BOOL"),
            konst("two", "DT_FLOAT"),
            node("cond/Switch", "Switch", &["x", "pred"], t.clone()),
            node("cond/Switch_1", "Switch", &["two", "pred"], t.clone()),
            node("cond/then/Relu", "Relu", &["cond/Switch:1"], t.clone()),
            node("cond/then/mul", "Mul", &["cond/then/Relu", "cond/Switch_1:1"], t.clone()),
            node("cond/else/Neg", "Neg", &["cond/Switch"], t.clone()),
            node("cond/Merge", "Merge", &["cond/else/Neg", "cond/then/mul"], t.clone()),
            node("out", "Identity", &["cond/Merge"], t),
        ],
        vec![("two", two)],
    );
    let loaded = usage(e);
    let x = f32s(e, &[1.0, -2.0, 3.0], &[3]);
    for (p, want) in [(1u8, vec![2.0, 0.0, 6.0]), (0, vec![-1.0, 2.0, -3.0])] {
        let pred = bools(e, &[p], &[]);
        let out = run_async(e, &g, &[("x", x), ("pred", pred)], &["out"]);
        assert_eq!(out[0], (vec![3], DType::Float32, want));
        // The merge itself can be asked for.
        let out = run_async(e, &g, &[("x", x), ("pred", pred)], &["cond/Merge"]);
        assert_eq!(out[0].0, [3]);
        e.dispose(pred);
    }
    // An output on the untaken branch has no value: tfjs's text.
    let pred = bools(e, &[0], &[]);
    fails(e, "Cannot compute the outputs [cond/then/mul] from the provided inputs [x,pred]. Consider providing the following inputs: []. Alternatively, to avoid the dynamic ops, use model.execute() and specify the inputs [cond/then/mul]", |e| {
        try_async(e, &g, &[("x", x), ("pred", pred)], &["cond/then/mul"])
    });
    e.dispose(pred);
    e.dispose(x);
    assert_eq!(usage(e), loaded);
    g.dispose(e);
}

/// tfjs-core's non-max suppression tests: two clusters of overlapping boxes and one apart.
fn boxes(e: &mut Engine) -> (TensorId, TensorId) {
    let b = f32s(
        e,
        &[
            0.0, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, -0.1, 1.0, 0.9, 0.0, 10.0, 1.0, 11.0, 0.0, 10.1, 1.0, 11.1,
            0.0, 100.0, 1.0, 101.0,
        ],
        &[6, 4],
    );
    let s = f32s(e, &[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], &[6]);
    (b, s)
}

fn non_max_suppression(e: &mut Engine) {
    let (b, s) = boxes(e);
    let max = i32s(e, &[3], &[]);
    let max6 = i32s(e, &[6], &[]);
    let iou = f32s(e, &[0.5], &[]);
    let iou1 = f32s(e, &[1.0], &[]);
    let thr = f32s(e, &[0.4], &[]);
    let thr0 = f32s(e, &[0.0], &[]);
    let sigma = f32s(e, &[0.5], &[]);
    let zero = i32s(e, &[0], &[]);
    let nodes = vec![
        placeholder("boxes", &[-1, -1], "DT_FLOAT"),
        placeholder("scores", &[-1], "DT_FLOAT"),
        konst("max", "DT_INT32"),
        konst("max6", "DT_INT32"),
        konst("iou", "DT_FLOAT"),
        konst("iou1", "DT_FLOAT"),
        konst("thr", "DT_FLOAT"),
        konst("thr0", "DT_FLOAT"),
        konst("sigma", "DT_FLOAT"),
        konst("zero", "DT_INT32"),
        node("v2", "NonMaxSuppressionV2", &["boxes", "scores", "max", "iou"], json!({})),
        node("v3", "NonMaxSuppressionV3", &["boxes", "scores", "max", "iou", "thr"], json!({})),
        node(
            "v4",
            "NonMaxSuppressionV4",
            &["boxes", "scores", "max6", "iou", "thr"],
            json!({"pad_to_max_output_size": {"b": true}}),
        ),
        node("v5", "NonMaxSuppressionV5", &["boxes", "scores", "max6", "iou1", "thr0", "sigma"], json!({})),
        node("picked", "GatherV2", &["boxes", "v5", "zero"], json!({})),
    ];
    let mut g = load(
        e,
        nodes,
        vec![
            ("max", max),
            ("max6", max6),
            ("iou", iou),
            ("iou1", iou1),
            ("thr", thr),
            ("thr0", thr0),
            ("sigma", sigma),
            ("zero", zero),
        ],
    );
    let loaded = usage(e);
    let feeds = [("boxes", b), ("scores", s)];
    let out = run_async(e, &g, &feeds, &["v2", "v3", "v4", "v4:1", "v5", "v5:1", "picked"]);
    // Highest first; a box overlapping a chosen one by IoU >= 0.5 is dropped.
    assert_eq!(out[0], (vec![3], DType::Int32, vec![3.0, 0.0, 5.0]));
    // Score threshold 0.4 drops box 5 (0.3).
    assert_eq!(out[1], (vec![2], DType::Int32, vec![3.0, 0.0]));
    // Padded to 6 with zeros; 2 valid.
    assert_eq!(out[2], (vec![6], DType::Int32, vec![3.0, 0.0, 0.0, 0.0, 0.0, 0.0]));
    assert_eq!(out[3], (vec![], DType::Int32, vec![2.0]));
    // Soft-NMS, sigma 0.5: overlapping boxes keep a decayed score exp(-iou² / (2 σ)) · s.
    assert_eq!(out[4], (vec![6], DType::Int32, vec![3.0, 0.0, 1.0, 5.0, 4.0, 2.0]));
    let iou01: f64 = 0.9 / 1.1; // boxes 0 and 1 (and 0 and 2), 10 and 10.1 likewise
    let w = (-iou01 * iou01).exp();
    let want = [0.95, 0.9, 0.75 * w, 0.3, 0.5 * w, 0.6 * w * (-(0.8f64 / 1.2).powi(2)).exp()];
    assert_eq!((&out[5].0, out[5].1), (&vec![6], DType::Float32));
    assert_close(&out[5].2, &want, 1e-6);
    assert_eq!(out[6].0, [6, 4]);
    assert_close(&out[6].2[..4], &[0.0, 10.0, 1.0, 11.0], 0.0);
    // execute() refuses the dynamic ops: V3 at compile (tfjs's text), V4 on its promise.
    let f: Vec<(String, TensorId)> = vec![("boxes".into(), b), ("scores".into(), s)];
    fails(e, "which has the dynamic op 'NonMaxSuppressionV3'. Please use model.executeAsync() instead.", |e| {
        g.execute(e, &f, &strings(&["v3"]))
    });
    fails(
        e,
        "The execution of the op 'NonMaxSuppressionV4' returned a promise. Please use model.executeAsync() instead.",
        |e| g.execute(e, &f, &strings(&["v4"])),
    );
    // The checks of nonMaxSuppSanityCheck.
    let bad = f32s(e, &[0.0; 6], &[2, 3]);
    fails(e, "boxes must have 4 columns, but 2nd dimension was 3", |e| {
        try_async(e, &g, &[("boxes", bad), ("scores", s)], &["v3"])
    });
    e.dispose(bad);
    let mid = usage(e);
    for _ in 0..50 {
        let ids = try_async(e, &g, &feeds, &["picked", "v5:1"]).unwrap();
        for id in ids {
            e.dispose(id);
        }
    }
    assert_eq!(usage(e), mid);
    assert_eq!(usage(e), loaded);
    e.dispose(b);
    e.dispose(s);
    g.dispose(e);
}

fn where_and_list_diff(e: &mut Engine) {
    let t = json!({"T": {"type": "DT_FLOAT"}});
    let zero = f32s(e, &[0.0], &[]);
    let mut g = load(
        e,
        vec![
            placeholder("x", &[-1, 3], "DT_FLOAT"),
            placeholder("a", &[-1], "DT_INT32"),
            placeholder("b", &[-1], "DT_INT32"),
            konst("zero", "DT_FLOAT"),
            node("greater", "Greater", &["x", "zero"], t.clone()),
            node("where", "Where", &["greater"], json!({"T": {"type": "DT_BOOL"}})),
            node("where_f", "Where", &["x"], t),
            node("diff", "ListDiff", &["a", "b"], json!({"T": {"type": "DT_INT32"}})),
        ],
        vec![("zero", zero)],
    );
    let x = f32s(e, &[1.0, -1.0, 2.0, 0.0, 3.0, -4.0], &[2, 3]);
    let out = run_async(e, &g, &[("x", x)], &["where", "where_f"]);
    assert_eq!(out[0], (vec![3, 2], DType::Int32, vec![0.0, 0.0, 0.0, 2.0, 1.0, 1.0]));
    assert_eq!(out[1], (vec![5, 2], DType::Int32, vec![0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 2.0]));
    let none = f32s(e, &[-1.0, -2.0, -3.0], &[1, 3]);
    let out = run_async(e, &g, &[("x", none)], &["where"]);
    assert_eq!(out[0], (vec![0, 2], DType::Int32, vec![]));
    let a = i32s(e, &[1, 2, 3, 4, 5, 6], &[6]);
    let b = i32s(e, &[1, 3, 5], &[3]);
    let out = run_async(e, &g, &[("a", a), ("b", b)], &["diff", "diff:1"]);
    assert_eq!(out[0], (vec![3], DType::Int32, vec![2.0, 4.0, 6.0]));
    assert_eq!(out[1], (vec![3], DType::Int32, vec![1.0, 3.0, 5.0]));
    let f: Vec<(String, TensorId)> = vec![("x".into(), x)];
    fails(e, "which has the dynamic op 'Where'. Please use model.executeAsync() instead.", |e| {
        g.execute(e, &f, &strings(&["where"]))
    });
    for t in [x, none, a, b] {
        e.dispose(t);
    }
    g.dispose(e);
}

/// A TensorArray written in a while loop (squares of 0..n-1), then read back whole
/// (TensorArraySizeV3, Range, TensorArrayGatherV3) and one element (TensorArrayReadV3), and
/// closed.
fn tensor_array_loop(e: &mut Engine) {
    let zero = i32s(e, &[0], &[]);
    let one = i32s(e, &[1], &[]);
    let two = i32s(e, &[2], &[]);
    let ti = json!({"T": {"type": "DT_INT32"}});
    let tf = json!({"T": {"type": "DT_FLOAT"}});
    let ta_attr = json!({
        "dtype": {"type": "DT_FLOAT"}, "element_shape": {"shape": {"dim": [{"size": "2"}]}},
        "dynamic_size": {"b": false}, "clear_after_read": {"b": true},
        "identical_element_shapes": {"b": true}, "tensor_array_name": {"s": ""}
    });
    let mut g = load(
        e,
        vec![
            placeholder("n", &[], "DT_INT32"),
            konst("zero", "DT_INT32"),
            konst("one", "DT_INT32"),
            konst("two", "DT_INT32"),
            node("ta", "TensorArrayV3", &["n"], ta_attr),
            node("w/Enter", "Enter", &["zero"], frame("w", false)),
            node("w/Enter_1", "Enter", &["ta:1"], frame("w", false)),
            node("w/Enter_2", "Enter", &["n"], frame("w", true)),
            node("w/Enter_3", "Enter", &["ta"], frame("w", true)),
            node("w/Merge", "Merge", &["w/Enter", "w/NextIteration"], ti.clone()),
            node("w/Merge_1", "Merge", &["w/Enter_1", "w/NextIteration_1"], tf.clone()),
            node("w/Less", "Less", &["w/Merge", "w/Enter_2"], ti.clone()),
            node("w/LoopCond", "LoopCond", &["w/Less"], json!({})),
            node("w/Switch", "Switch", &["w/Merge", "w/LoopCond"], ti.clone()),
            node("w/Switch_1", "Switch", &["w/Merge_1", "w/LoopCond"], tf.clone()),
            node("w/Identity", "Identity", &["w/Switch:1"], ti.clone()),
            node("w/Identity_1", "Identity", &["w/Switch_1:1"], tf.clone()),
            node("w/sq", "Mul", &["w/Identity", "w/Identity"], ti.clone()),
            node("w/pair", "Pack", &["w/sq", "w/Identity"], json!({"N": {"i": "2"}, "axis": {"i": "0"}})),
            node("w/f", "Cast", &["w/pair"], json!({"DstT": {"type": "DT_FLOAT"}})),
            node("w/write", "TensorArrayWriteV3", &["w/Enter_3", "w/Identity", "w/f", "w/Identity_1"], tf.clone()),
            node("w/add", "AddV2", &["w/Identity", "one"], ti.clone()),
            node("w/NextIteration", "NextIteration", &["w/add"], ti.clone()),
            node("w/NextIteration_1", "NextIteration", &["w/write"], tf.clone()),
            node("w/Exit", "Exit", &["w/Switch"], ti.clone()),
            node("w/Exit_1", "Exit", &["w/Switch_1"], tf),
            node("size", "TensorArraySizeV3", &["ta", "w/Exit_1"], json!({})),
            node("range", "Range", &["zero", "size", "one"], json!({"Tidx": {"type": "DT_INT32"}})),
            node("gather", "TensorArrayGatherV3", &["ta", "range", "w/Exit_1"], json!({"dtype": {"type": "DT_FLOAT"}})),
            node("count", "Identity", &["w/Exit"], ti),
        ],
        vec![("zero", zero), ("one", one), ("two", two)],
    );
    let loaded = usage(e);
    let n = i32s(e, &[4], &[]);
    let out = run_async(e, &g, &[("n", n)], &["gather", "size", "count"]);
    assert_eq!(out[0], (vec![4, 2], DType::Float32, vec![0.0, 0.0, 1.0, 1.0, 4.0, 2.0, 9.0, 3.0]));
    assert_eq!(out[1], (vec![], DType::Int32, vec![4.0]));
    assert_eq!(out[2].2, [4.0]);
    for _ in 0..20 {
        let ids = try_async(e, &g, &[("n", n)], &["gather"]).unwrap();
        e.dispose(ids[0]);
    }
    assert_eq!(usage(e), (loaded.0 + 1, loaded.1 + 1, loaded.2 + 4, loaded.3 + 4));
    e.dispose(n);
    assert_eq!(usage(e), loaded);
    g.dispose(e);
}

/// Errors inside a loop (a TensorArray written past its size) leave nothing behind.
fn errors_leave_nothing(e: &mut Engine) {
    let zero = i32s(e, &[0], &[]);
    let one = i32s(e, &[1], &[]);
    let three = i32s(e, &[3], &[]);
    let ti = json!({"T": {"type": "DT_INT32"}});
    let tf = json!({"T": {"type": "DT_FLOAT"}});
    let ta_attr =
        json!({"dtype": {"type": "DT_INT32"}, "dynamic_size": {"b": false}, "tensor_array_name": {"s": b64("arr")}});
    let mut g = load(
        e,
        vec![
            placeholder("n", &[], "DT_INT32"),
            konst("zero", "DT_INT32"),
            konst("one", "DT_INT32"),
            konst("three", "DT_INT32"),
            node("ta", "TensorArrayV3", &["three"], ta_attr),
            node("w/Enter", "Enter", &["zero"], frame("w", false)),
            node("w/Enter_1", "Enter", &["ta:1"], frame("w", false)),
            node("w/Enter_2", "Enter", &["n"], frame("w", true)),
            node("w/Enter_3", "Enter", &["ta"], frame("w", true)),
            node("w/Merge", "Merge", &["w/Enter", "w/NextIteration"], ti.clone()),
            node("w/Merge_1", "Merge", &["w/Enter_1", "w/NextIteration_1"], tf.clone()),
            node("w/Less", "Less", &["w/Merge", "w/Enter_2"], ti.clone()),
            node("w/LoopCond", "LoopCond", &["w/Less"], json!({})),
            node("w/Switch", "Switch", &["w/Merge", "w/LoopCond"], ti.clone()),
            node("w/Switch_1", "Switch", &["w/Merge_1", "w/LoopCond"], tf.clone()),
            node("w/Identity", "Identity", &["w/Switch:1"], ti.clone()),
            node("w/Identity_1", "Identity", &["w/Switch_1:1"], tf.clone()),
            node("w/sq", "Mul", &["w/Identity", "w/Identity"], ti.clone()),
            node("w/one", "Pack", &["w/sq"], json!({"N": {"i": "1"}, "axis": {"i": "0"}})),
            node("w/write", "TensorArrayWriteV3", &["w/Enter_3", "w/Identity", "w/one", "w/Identity_1"], ti.clone()),
            node("w/add", "AddV2", &["w/Identity", "one"], ti.clone()),
            node("w/NextIteration", "NextIteration", &["w/add"], ti.clone()),
            node("w/NextIteration_1", "NextIteration", &["w/write"], tf.clone()),
            node("w/Exit_1", "Exit", &["w/Switch_1"], tf),
            node("w/Exit", "Exit", &["w/Switch"], ti),
            node("concat", "TensorArrayConcatV3", &["ta", "w/Exit_1"], json!({"dtype": {"type": "DT_INT32"}})),
            node("close", "TensorArrayCloseV3", &["ta", "^concat"], json!({})),
        ],
        vec![("zero", zero), ("one", one), ("three", three)],
    );
    let loaded = usage(e);
    let n = i32s(e, &[3], &[]);
    let out = run_async(e, &g, &[("n", n)], &["concat", "close"]);
    assert_eq!(out[0], (vec![3], DType::Int32, vec![0.0, 1.0, 4.0]));
    let five = i32s(e, &[5], &[]);
    fails(e, "Tried to write to index 3, but array is not resizeable and size is: 3", |e| {
        try_async(e, &g, &[("n", five)], &["concat"])
    });
    e.dispose(n);
    e.dispose(five);
    assert_eq!(usage(e), loaded);
    g.dispose(e);
}

/// TensorListFromTensor, SetItem, GetItem, Stack, Length, Reserve, PushBack, PopBack, Gather.
fn tensor_lists(e: &mut Engine) {
    let shape2 = i32s(e, &[2], &[1]);
    let any = i32s(e, &[-1], &[]);
    let one = i32s(e, &[1], &[]);
    let idx = i32s(e, &[2, 0], &[2]);
    let ld = json!({"element_dtype": {"type": "DT_FLOAT"}});
    let mut g = load(
        e,
        vec![
            placeholder("x", &[3, 2], "DT_FLOAT"),
            placeholder("y", &[-1], "DT_FLOAT"),
            konst("shape2", "DT_INT32"),
            konst("any", "DT_INT32"),
            konst("one", "DT_INT32"),
            konst("idx", "DT_INT32"),
            node("list", "TensorListFromTensor", &["x", "shape2"], ld.clone()),
            node("set", "TensorListSetItem", &["list", "one", "y"], ld.clone()),
            node("get", "TensorListGetItem", &["set", "one", "shape2"], ld.clone()),
            node("stack", "TensorListStack", &["set", "shape2"], ld.clone()),
            node("len", "TensorListLength", &["set"], json!({})),
            node("gather", "TensorListGather", &["set", "idx", "any"], ld.clone()),
            node("reserve", "TensorListReserve", &["any", "one"], ld.clone()),
            node("push", "TensorListPushBack", &["reserve", "y"], ld.clone()),
            node("pop", "TensorListPopBack", &["push", "shape2"], ld),
        ],
        vec![("shape2", shape2), ("any", any), ("one", one), ("idx", idx)],
    );
    let loaded = usage(e);
    let x = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
    let y = f32s(e, &[-1.0, -2.0], &[2]);
    let out = run_async(e, &g, &[("x", x), ("y", y)], &["get", "stack", "len", "gather", "pop"]);
    assert_eq!(out[0], (vec![2], DType::Float32, vec![-1.0, -2.0]));
    assert_eq!(out[1], (vec![3, 2], DType::Float32, vec![1.0, 2.0, -1.0, -2.0, 5.0, 6.0]));
    assert_eq!(out[2], (vec![], DType::Int32, vec![3.0]));
    assert_eq!(out[3], (vec![2, 2], DType::Float32, vec![5.0, 6.0, 1.0, 2.0]));
    assert_eq!(out[4], (vec![2], DType::Float32, vec![-1.0, -2.0]));
    let f: Vec<(String, TensorId)> = vec![("x".into(), x), ("y".into(), y)];
    fails(
        e,
        "The execution of the op 'TensorListFromTensor' returned a promise. Please use model.executeAsync() instead.",
        |e| g.execute(e, &f, &strings(&["len"])),
    );
    // A wrong element shape: tfjs's text.
    let z = f32s(e, &[1.0, 2.0, 3.0], &[3]);
    fails(e, "TensorList shape mismatch:  Shapes 2 and 3 must match", |e| {
        try_async(e, &g, &[("x", x), ("y", z)], &["stack"])
    });
    for t in [x, y, z] {
        e.dispose(t);
    }
    assert_eq!(usage(e), loaded);
    g.dispose(e);
}

/// TensorFlow 2's StatelessWhile and StatelessIf over functions of the GraphDef's library (with
/// Consts of their own, stored with the weights): `while (i < n) { acc = acc * 0.5 + x * i; i++ }`,
/// then `sum(acc) > 0 ? relu(acc) * 2 : -acc`.
fn functional_control_flow(e: &mut Engine) {
    let arg = |name: &str, t: &str| json!({"name": name, "type": t});
    let loop_args = json!([arg("i", "DT_INT32"), arg("acc", "DT_FLOAT"), arg("x", "DT_FLOAT"), arg("n", "DT_INT32")]);
    let ti = json!({"T": {"type": "DT_INT32"}});
    let tf = json!({"T": {"type": "DT_FLOAT"}});
    let library = json!({"function": [
        {
            "signature": {"name": "cond_fn", "inputArg": loop_args, "outputArg": [arg("identity", "DT_BOOL")]},
            "nodeDef": [node("Less", "Less", &["i", "n"], ti.clone()), node("Identity", "Identity", &["Less:z:0"], json!({}))],
            "ret": {"identity": "Identity:output:0"}
        },
        {
            "signature": {"name": "body_fn", "inputArg": loop_args, "outputArg": [
                arg("o_i", "DT_INT32"), arg("o_acc", "DT_FLOAT"), arg("o_x", "DT_FLOAT"), arg("o_n", "DT_INT32")]},
            "nodeDef": [
                konst("body_fn/one", "DT_INT32"),
                konst("body_fn/decay", "DT_FLOAT"),
                node("add", "AddV2", &["i", "body_fn/one:output:0"], ti.clone()),
                node("Cast", "Cast", &["i"], json!({"SrcT": {"type": "DT_INT32"}, "DstT": {"type": "DT_FLOAT"}})),
                node("mul", "Mul", &["x", "Cast:y:0"], tf.clone()),
                node("mul_1", "Mul", &["acc", "body_fn/decay:output:0"], tf.clone()),
                node("add_1", "AddV2", &["mul_1:z:0", "mul:z:0"], tf.clone()),
            ],
            "ret": {"o_i": "add:z:0", "o_acc": "add_1:z:0", "o_x": "x", "o_n": "n"}
        },
        {
            "signature": {"name": "then_fn", "inputArg": [arg("a", "DT_FLOAT")], "outputArg": [arg("r", "DT_FLOAT")]},
            "nodeDef": [
                konst("then_fn/two", "DT_FLOAT"),
                node("Relu", "Relu", &["a"], tf.clone()),
                node("mul", "Mul", &["Relu:activations:0", "then_fn/two:output:0"], tf.clone()),
            ],
            "ret": {"r": "mul:z:0"}
        },
        {
            "signature": {"name": "else_fn", "inputArg": [arg("a", "DT_FLOAT")], "outputArg": [arg("r", "DT_FLOAT")]},
            "nodeDef": [node("Neg", "Neg", &["a"], tf.clone())],
            "ret": {"r": "Neg:y:0"}
        }
    ]});
    let nodes = vec![
        placeholder("x", &[3], "DT_FLOAT"),
        placeholder("n", &[], "DT_INT32"),
        konst("i0", "DT_INT32"),
        konst("acc0", "DT_FLOAT"),
        konst("axis", "DT_INT32"),
        konst("zero", "DT_FLOAT"),
        node(
            "while",
            "StatelessWhile",
            &["i0", "acc0", "x", "n"],
            json!({"cond": {"func": {"name": "cond_fn"}}, "body": {"func": {"name": "body_fn"}}}),
        ),
        node("sum", "Sum", &["while:1", "axis"], json!({"keep_dims": {"b": false}})),
        node("positive", "Greater", &["sum", "zero"], tf.clone()),
        node(
            "if",
            "StatelessIf",
            &["positive", "while:1"],
            json!({"then_branch": {"func": {"name": "then_fn"}}, "else_branch": {"func": {"name": "else_fn"}}}),
        ),
    ];
    let before = usage(e);
    let mut weights = Vec::new();
    for (name, t) in [
        ("body_fn/one", i32s(e, &[1], &[])),
        ("body_fn/decay", f32s(e, &[0.5], &[])),
        ("then_fn/two", f32s(e, &[2.0], &[])),
        ("i0", i32s(e, &[0], &[])),
        ("acc0", f32s(e, &[0.0; 3], &[3])),
        ("axis", i32s(e, &[0], &[])),
        ("zero", f32s(e, &[0.0], &[])),
    ] {
        weights.push((name.to_string(), t));
    }
    let topology = json!({"node": nodes, "library": library, "versions": {"producer": 1}}).to_string();
    let mut g = Graph::load(e, &topology, &weights).expect("load");
    assert!(g.control_flow());
    assert_eq!(g.function_names(), ["body_fn", "cond_fn", "else_fn", "then_fn"]);
    assert_eq!(g.weight_names()[..3], ["body_fn/one", "body_fn/decay", "then_fn/two"]);
    let loaded = usage(e);
    let x = f32s(e, &[1.0, 2.0, 3.0], &[3]);
    let neg = f32s(e, &[-1.0, -2.0, 3.0], &[3]);
    // acc after n rounds: sum over i < n of x * i * 0.5^(n-1-i).
    let acc = |x: [f64; 3], n: i32| -> Vec<f64> {
        x.iter().map(|&v| (0..n).map(|i| v * i as f64 * 0.5f64.powi(n - 1 - i)).sum()).collect()
    };
    for (xt, xv) in [(x, [1.0, 2.0, 3.0]), (neg, [-1.0, -2.0, 3.0])] {
        for n in [0, 1, 4, 9] {
            let nt = i32s(e, &[n], &[]);
            let want = acc(xv, n);
            let sum: f64 = want.iter().sum();
            let cond: Vec<f64> = want.iter().map(|&v| if sum > 0.0 { v.max(0.0) * 2.0 } else { -v }).collect();
            if n == 0 {
                // No round: the loop's outputs are its inputs (the weights i0 and acc0, returned as
                // they are, as tfjs does).
                let ids = try_async(e, &g, &[("x", xt), ("n", nt)], &["while", "while:1"]).unwrap();
                assert_eq!(ids, [weights[3].1, weights[4].1]);
                let out = run_async(e, &g, &[("x", xt), ("n", nt)], &["if"]);
                assert_close(&out[0].2, &cond, 1e-6);
            } else {
                let out = run_async(e, &g, &[("x", xt), ("n", nt)], &["while", "while:1", "if"]);
                assert_eq!(out[0], (vec![], DType::Int32, vec![n as f64]), "n = {n}");
                assert_close(&out[1].2, &want, 1e-6);
                assert_close(&out[2].2, &cond, 1e-6);
            }
            e.dispose(nt);
        }
    }
    // The loop's rounds leave nothing behind over many runs.
    let nt = i32s(e, &[30], &[]);
    let mid = usage(e);
    for _ in 0..20 {
        let ids = try_async(e, &g, &[("x", x), ("n", nt)], &["if"]).unwrap();
        e.dispose(ids[0]);
    }
    assert_eq!(usage(e), mid);
    for t in [x, neg, nt] {
        e.dispose(t);
    }
    assert_eq!(usage(e), loaded);
    assert_eq!(g.dispose(e), 7);
    assert_eq!(usage(e), before);
}

backend_tests!(
    functional_control_flow,
    while_loops,
    conditionals,
    non_max_suppression,
    where_and_list_diff,
    tensor_array_loop,
    errors_leave_nothing,
    tensor_lists,
    nested_calls,
    loop_limits_and_slices,
    custom_ops_in_a_loop,
);

/// A library function `name(c: bool, a: float) -> r`: `If(c, c, a)` calling `callee` in both
/// branches, or `-a` when there is no callee.
fn nesting_fn(name: &str, callee: Option<&str>) -> Value {
    let arg = |n: &str, t: &str| json!({"name": n, "type": t});
    let signature = json!({"name": name, "inputArg": [arg("c", "DT_BOOL"), arg("a", "DT_FLOAT")],
        "outputArg": [arg("r", "DT_FLOAT")]});
    match callee {
        Some(f) => json!({
            "signature": signature,
            "nodeDef": [node("if", "StatelessIf", &["c", "c", "a"],
                json!({"then_branch": {"func": {"name": f}}, "else_branch": {"func": {"name": f}}}))],
            "ret": {"r": "if:output:0"}
        }),
        None => json!({
            "signature": signature,
            "nodeDef": [node("Neg", "Neg", &["a"], json!({"T": {"type": "DT_FLOAT"}}))],
            "ret": {"r": "Neg:y:0"}
        }),
    }
}

/// A graph calling `first` of `library` on its inputs `c` and `a`.
fn calling(e: &mut Engine, first: &str, library: Vec<Value>) -> Graph {
    let nodes = vec![
        placeholder("c", &[], "DT_BOOL"),
        placeholder("a", &[2], "DT_FLOAT"),
        node(
            "out",
            "StatelessIf",
            &["c", "c", "a"],
            json!({"then_branch": {"func": {"name": first}}, "else_branch": {"func": {"name": first}}}),
        ),
    ];
    let topology = json!({"node": nodes, "library": {"function": library}, "versions": {"producer": 1}}).to_string();
    Graph::load(e, &topology, &[]).expect("load")
}

/// Function calls nest on the heap, not the native stack: a chain of 5,000 nested If
/// functions runs (tfjs runs it too); a function that calls itself ends at the depth limit
/// with an error naming it, leaving nothing behind.
fn nested_calls(e: &mut Engine) {
    let n = 5000;
    let mut library: Vec<Value> = (0..n).map(|k| nesting_fn(&format!("f{k}"), Some(&format!("f{}", k + 1)))).collect();
    library.push(nesting_fn(&format!("f{n}"), None));
    let mut g = calling(e, "f0", library);
    let c = bools(e, &[1], &[]);
    let a = f32s(e, &[1.5, -2.0], &[2]);
    let out = run_async(e, &g, &[("c", c), ("a", a)], &["out"]);
    assert_eq!(out[0].2, [-1.5, 2.0]);
    g.dispose(e);

    let mut g = calling(e, "again", vec![nesting_fn("again", Some("again"))]);
    let limits = Limits { max_call_depth: 300, max_loop_iterations: None };
    let feeds: Vec<(String, TensorId)> = vec![("c".into(), c), ("a".into(), a)];
    fails(
        e,
        &format!(
            "The graph's function 'again' is called 301 levels deep: the limit (the GRAPH_MAX_CALL_DEPTH flag){}{}",
            " (node 'if', op StatelessIf)".repeat(300),
            " (node 'out', op StatelessIf)"
        ),
        |e| g.start(e, &feeds, &strings(&["out"]), limits)?.resume(e, None),
    );
    // The default limit, in a few slices.
    let before = usage(e);
    let mut run = g.start(e, &feeds, &strings(&["out"]), Limits::default()).unwrap();
    let err = loop {
        match run.resume(e, Some(std::time::Instant::now())) {
            Ok(None) => continue,
            Ok(Some(_)) => panic!("an endless recursion ended"),
            Err(err) => break err,
        }
    };
    assert!(
        err.0
            .starts_with(&format!("The graph's function 'again' is called {} levels deep", DEFAULT_MAX_CALL_DEPTH + 1)),
        "{}",
        &err.0[..200]
    );
    assert!(run.ended());
    assert_eq!(usage(e), before);
    for t in [c, a] {
        e.dispose(t);
    }
    g.dispose(e);
}

/// Loops stop at GRAPH_MAX_LOOP_ITERATIONS (a frame loop's NextIterations, a While's rounds)
/// with nothing left behind; executions resumed in slices give the values of one run, and an
/// abort between slices disposes everything made.
fn loop_limits_and_slices(e: &mut Engine) {
    let before = usage(e);
    let mut g = while_loop(e);
    let loaded = usage(e);
    let x = f32s(e, &[2.0], &[]);
    let endless = i32s(e, &[i32::MAX], &[]);
    let feeds: Vec<(String, TensorId)> = vec![("x".into(), x), ("n".into(), endless)];
    let limits = Limits { max_call_depth: 10, max_loop_iterations: Some(100) };
    fails(
        e,
        "The loop ran more than 100 iterations: the limit (the GRAPH_MAX_LOOP_ITERATIONS flag) (node 'while/NextIteration', op NextIteration)",
        |e| g.start(e, &feeds, &strings(&["out"]), limits)?.resume(e, None),
    );
    // 100 iterations are allowed.
    let hundred = i32s(e, &[100], &[]);
    let feeds_100: Vec<(String, TensorId)> = vec![("x".into(), x), ("n".into(), hundred)];
    let ids = g.start(e, &feeds_100, &strings(&["out"]), limits).unwrap().resume(e, None).unwrap().unwrap();
    assert_eq!(e.read(ids[0]).unwrap().to_f64(), [2.0 * 100.0 * 99.0 / 2.0]);
    e.dispose(ids[0]);
    // Slices: many short ones give the same values.
    let mid = usage(e);
    let mut run = g.start(e, &feeds_100, &strings(&["out", "count"]), Limits::default()).unwrap();
    let mut slices = 0;
    let ids = loop {
        slices += 1;
        if let Some(ids) = run.resume(e, Some(std::time::Instant::now())).unwrap() {
            break ids;
        }
    };
    assert!(slices > 100, "{slices} slices");
    assert_eq!(e.read(ids[0]).unwrap().to_f64(), [2.0 * 100.0 * 99.0 / 2.0]);
    assert_eq!(e.read(ids[1]).unwrap().to_f64(), [100.0]);
    assert!(run.resume(e, None).is_err(), "an ended execution does not run again");
    for id in ids {
        e.dispose(id);
    }
    assert_eq!(usage(e), mid);
    // An endless loop, aborted between slices.
    let mut run = g.start(e, &feeds, &strings(&["out"]), Limits::default()).unwrap();
    for _ in 0..50 {
        assert!(run.resume(e, Some(std::time::Instant::now())).unwrap().is_none());
    }
    run.abort(e);
    assert!(run.ended());
    assert_eq!(usage(e), mid);
    for t in [x, endless, hundred] {
        e.dispose(t);
    }
    assert_eq!(usage(e), loaded);
    g.dispose(e);
    assert_eq!(usage(e), before);

    // A StatelessWhile whose condition is always true.
    let arg = |n: &str, t: &str| json!({"name": n, "type": t});
    let args = json!([arg("c", "DT_BOOL"), arg("a", "DT_FLOAT")]);
    let library = json!({"function": [
        {"signature": {"name": "yes", "inputArg": args, "outputArg": [arg("r", "DT_BOOL")]},
         "nodeDef": [], "ret": {"r": "c"}},
        {"signature": {"name": "body", "inputArg": args, "outputArg": [arg("o_c", "DT_BOOL"), arg("o_a", "DT_FLOAT")]},
         "nodeDef": [node("Neg", "Neg", &["a"], json!({"T": {"type": "DT_FLOAT"}}))],
         "ret": {"o_c": "c", "o_a": "Neg:y:0"}}
    ]});
    let nodes = vec![
        placeholder("c", &[], "DT_BOOL"),
        placeholder("a", &[2], "DT_FLOAT"),
        node(
            "w",
            "StatelessWhile",
            &["c", "a"],
            json!({"cond": {"func": {"name": "yes"}}, "body": {"func": {"name": "body"}}}),
        ),
    ];
    let topology = json!({"node": nodes, "library": library, "versions": {"producer": 1}}).to_string();
    let mut g = Graph::load(e, &topology, &[]).unwrap();
    let c = bools(e, &[1], &[]);
    let a = f32s(e, &[1.0, 2.0], &[2]);
    let feeds: Vec<(String, TensorId)> = vec![("c".into(), c), ("a".into(), a)];
    let limits = Limits { max_call_depth: 10, max_loop_iterations: Some(7) };
    fails(
        e,
        "The loop ran more than 7 iterations: the limit (the GRAPH_MAX_LOOP_ITERATIONS flag) (node 'w', op StatelessWhile)",
        |e| g.start(e, &feeds, &strings(&["w:1"]), limits)?.resume(e, None),
    );
    let mut run = g.start(e, &feeds, &strings(&["w:1"]), Limits::default()).unwrap();
    let mid = usage(e);
    for _ in 0..50 {
        assert!(run.resume(e, Some(std::time::Instant::now())).unwrap().is_none());
    }
    run.abort(e);
    assert_eq!(usage(e), mid);
    for t in [c, a] {
        e.dispose(t);
    }
    g.dispose(e);
}

/// A custom op (tf.registerOp's) in a loop: the execution stops at each of its nodes for the
/// caller's outputs, gives the same values as the built-in op, and leaves only its outputs;
/// an op the caller does not run fails as unknown; an identity output is copied.
fn custom_ops_in_a_loop(e: &mut Engine) {
    let before = usage(e);
    let mut g = while_loop_with(e, "TtMul");
    let x = f32s(e, &[2.0], &[]);
    let n = i32s(e, &[10], &[]);
    let feeds: Vec<(String, TensorId)> = vec![("x".into(), x), ("n".into(), n)];
    let mid = usage(e);
    let mut run = g
        .start(e, &feeds, &strings(&["out", "count"]), Limits::default())
        .unwrap()
        .with_custom_ops(["TtMul".to_string()]);
    let mut calls = 0;
    let ids = loop {
        if let Some(ids) = run.resume(e, None).unwrap() {
            break ids;
        }
        let (name, op, ins) = run.custom_request().expect("a custom op request");
        assert_eq!((name, op, ins.len()), ("while/mul", "TtMul", 2));
        let (a, b) = (ins[0], ins[1]);
        assert!(run.resume(e, None).is_err(), "no resume before the outputs");
        let y = e.mul(a, b).unwrap();
        run.provide(e, vec![y]).unwrap();
        calls += 1;
    };
    assert_eq!(calls, 10);
    assert_eq!(e.read(ids[0]).unwrap().to_f64(), [2.0 * 10.0 * 9.0 / 2.0]);
    assert_eq!(e.read(ids[1]).unwrap().to_f64(), [10.0]);
    for id in ids {
        e.dispose(id);
    }
    assert_eq!(usage(e), mid);
    // An identity op: its output is one of its inputs, copied for the execution.
    let mut run =
        g.start(e, &feeds, &strings(&["out"]), Limits::default()).unwrap().with_custom_ops(["TtMul".to_string()]);
    let ids = loop {
        if let Some(ids) = run.resume(e, None).unwrap() {
            break ids;
        }
        let b = run.custom_request().unwrap().2[1];
        run.provide(e, vec![b]).unwrap();
    };
    assert_eq!(e.read(ids[0]).unwrap().to_f64(), [20.0]);
    e.dispose(ids[0]);
    assert_eq!(usage(e), mid);
    // Nothing to provide for; an op not run by the caller is unknown.
    let mut run = g.start(e, &feeds, &strings(&["out"]), Limits::default()).unwrap();
    let stray = f32s(e, &[1.0], &[]);
    assert!(run.provide(e, vec![stray]).is_err());
    fails(e, "Unknown op 'TtMul'", |e| run.resume(e, None));
    assert_eq!(usage(e), mid);
    for t in [x, n] {
        e.dispose(t);
    }
    g.dispose(e);
    assert_eq!(usage(e), before);
}
