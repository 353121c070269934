//! Graph models on every backend: small GraphDefs written inline (a dense layer, a fused
//! convolution, a shape subgraph, ops with attributes) checked against hand-computed values;
//! intermediates freed (an execution adds only its outputs); errors with tfjs's texts that
//! leave nothing behind; and the real nsfwjs MobileNetV2 topology when node_modules has it.

use serde_json::{json, Value};
use tidytensor_core::{DType, Engine, TensorId};
use tidytensor_graph::Graph;

mod common;
use common::{b64, konst, node, placeholder};
use tidytensor_suite::{assert_close, backend_tests, f32s, fails, i32s, usage, values};

fn s(v: &str) -> Value {
    json!({"s": b64(v)})
}

fn ilist(v: &[i64]) -> Value {
    json!({"list": {"i": v.iter().map(|x| x.to_string()).collect::<Vec<_>>()}})
}

fn graph(nodes: Vec<Value>) -> String {
    json!({"node": nodes, "versions": {"producer": 1}}).to_string()
}

fn load(e: &mut Engine, nodes: Vec<Value>, weights: Vec<(&str, TensorId)>) -> Graph {
    let w: Vec<(String, TensorId)> = weights.into_iter().map(|(n, t)| (n.to_string(), t)).collect();
    Graph::load(e, &graph(nodes), &w).expect("load")
}

fn run(e: &mut Engine, g: &Graph, feeds: &[(&str, TensorId)], outputs: &[&str]) -> Vec<TensorId> {
    let f: Vec<(String, TensorId)> = feeds.iter().map(|(n, t)| (n.to_string(), *t)).collect();
    let o: Vec<String> = outputs.iter().map(|s| s.to_string()).collect();
    g.execute(e, &f, &o).expect("execute")
}

fn try_run(
    e: &mut Engine,
    g: &Graph,
    feeds: &[(&str, TensorId)],
    outputs: &[&str],
) -> tidytensor_core::Result<Vec<TensorId>> {
    let f: Vec<(String, TensorId)> = feeds.iter().map(|(n, t)| (n.to_string(), *t)).collect();
    let o: Vec<String> = outputs.iter().map(|s| s.to_string()).collect();
    g.execute(e, &f, &o)
}

/// Runs, checks that the run added exactly its outputs, and returns their values.
fn run_values(e: &mut Engine, g: &Graph, feeds: &[(&str, TensorId)], outputs: &[&str]) -> Vec<Vec<f64>> {
    let before = e.memory().num_tensors;
    let ids = run(e, g, feeds, outputs);
    assert_eq!(e.memory().num_tensors, before + ids.len(), "an execution adds only its outputs");
    let out =
        ids.iter().map(|&id| tidytensor_suite::values(e, id, e.shape(id).unwrap(), e.dtype(id).unwrap())).collect();
    for id in ids {
        e.dispose(id);
    }
    out
}

/// x[2,3] · w[3,2] + b, relu, softmax (MatMul, BiasAdd, Relu, Softmax, Identity).
fn dense_graph(e: &mut Engine) -> Graph {
    let w = f32s(e, &[1.0, -1.0, 0.5, 2.0, -0.5, 0.0], &[3, 2]);
    let b = f32s(e, &[0.1, -0.2], &[2]);
    load(
        e,
        vec![
            placeholder("x", &[-1, 3], "DT_FLOAT"),
            konst("w", "DT_FLOAT"),
            konst("b", "DT_FLOAT"),
            node("mm", "MatMul", &["x", "w"], json!({"transpose_a": {"b": false}, "transpose_b": {"b": false}})),
            node("bias", "BiasAdd", &["mm", "b"], json!({"data_format": s("NHWC")})),
            node("relu", "Relu", &["bias"], json!({"T": {"type": "DT_FLOAT"}})),
            node("probs", "Softmax", &["relu"], json!({})),
            node("Identity", "Identity", &["probs"], json!({})),
        ],
        vec![("w", w), ("b", b)],
    )
}

fn dense_layer(e: &mut Engine) {
    let before = usage(e);
    let mut g = dense_graph(e);
    assert!(!g.control_flow());
    let loaded = usage(e);
    assert_eq!(loaded.0, before.0 + 2, "the graph holds its two weights");
    let x = f32s(e, &[1.0, 2.0, 3.0, -1.0, 0.0, 1.0], &[2, 3]);
    let out = run_values(e, &g, &[("x", x)], &["Identity", "relu", "mm:0"]);
    // mm = [[1+1-1.5, -1+4+0], [-1+0-0.5, 1+0+0]] = [[0.5, 3], [-1.5, 1]]
    assert_close(&out[2], &[0.5, 3.0, -1.5, 1.0], 1e-6);
    assert_close(&out[1], &[0.6, 2.8, 0.0, 0.8], 1e-6);
    let p0 = 1.0 / (1.0 + (2.2f64).exp());
    let p1 = 1.0 / (1.0 + (0.8f64).exp());
    assert_close(&out[0], &[p0, 1.0 - p0, p1, 1.0 - p1], 1e-6);
    // Asking again reuses the compiled plan and gives the same.
    let again = run_values(e, &g, &[("x:0", x)], &["Identity"]);
    assert_close(&again[0], &out[0], 0.0);
    e.dispose(x);
    assert_eq!(usage(e), loaded);
    // Outputs of a run inside a scope belong to that scope.
    let x = f32s(e, &[1.0, 2.0, 3.0], &[1, 3]);
    e.start_scope();
    run(e, &g, &[("x", x)], &["Identity"]);
    e.end_scope(&[]);
    e.dispose(x);
    assert_eq!(usage(e), loaded);
    assert_eq!(g.weight_names(), ["w", "b"]);
    assert_eq!(g.dispose(e), 2);
    assert_eq!(usage(e), before);
    let x = f32s(e, &[1.0, 2.0, 3.0], &[1, 3]);
    fails(e, "disposed", |e| try_run(e, &g, &[("x", x)], &["Identity"]));
    e.dispose(x);
}

fn inputs_and_outputs(e: &mut Engine) {
    let mut g = dense_graph(e);
    let ins: Vec<Value> = g.inputs().iter().map(|s| s.to_json()).collect();
    assert_eq!(Value::Array(ins), json!([{"name": "x", "shape": [null, 3], "dtype": "float32"}]));
    let outs: Vec<Value> = g.outputs().iter().map(|s| s.to_json()).collect();
    assert_eq!(Value::Array(outs), json!([{"name": "Identity", "shape": null, "dtype": null}]));
    g.dispose(e);
}

/// A 3×3 image, a 2×2 filter of ones, bias -10: _FusedConv2D (BiasAdd, Relu) and
/// FusedDepthwiseConv2dNative (BiasAdd, Relu6), and the plain ops they fuse.
fn fused_conv(e: &mut Engine) {
    let before = usage(e);
    let f = f32s(e, &[1.0; 4], &[2, 2, 1, 1]);
    let b = f32s(e, &[-10.0], &[1]);
    let win = |strides: &[i64]| {
        json!({
            "strides": ilist(strides), "padding": s("VALID"), "data_format": s("NHWC"),
            "dilations": ilist(&[1, 1, 1, 1]), "explicit_paddings": {"list": {}}, "T": {"type": "DT_FLOAT"}
        })
    };
    let mut fused = win(&[1, 1, 1, 1]);
    fused["fused_ops"] = json!({"list": {"s": [b64("BiasAdd"), b64("Relu")]}});
    fused["num_args"] = json!({"i": "1"});
    fused["epsilon"] = json!({"f": 0});
    let mut dw = fused.clone();
    dw["fused_ops"] = json!({"list": {"s": [b64("BiasAdd"), b64("Relu6")]}});
    let mut g = load(
        e,
        vec![
            placeholder("x", &[1, 3, 3, 1], "DT_FLOAT"),
            konst("f", "DT_FLOAT"),
            konst("b", "DT_FLOAT"),
            node("conv", "_FusedConv2D", &["x", "f", "b"], fused),
            node("dw", "FusedDepthwiseConv2dNative", &["x", "f", "b"], dw),
            node("plain", "Conv2D", &["x", "f"], win(&[1, 1, 1, 1])),
            node("biased", "BiasAdd", &["plain", "b"], json!({})),
            node("relu", "Relu", &["biased"], json!({})),
            node(
                "pool",
                "MaxPool",
                &["x"],
                json!({"ksize": ilist(&[1, 2, 2, 1]), "strides": ilist(&[1, 1, 1, 1]), "padding": s("VALID")}),
            ),
            node(
                "avg",
                "AvgPool",
                &["x"],
                json!({"ksize": ilist(&[1, 3, 3, 1]), "strides": ilist(&[1, 1, 1, 1]), "padding": s("SAME")}),
            ),
        ],
        vec![("f", f), ("b", b)],
    );
    let x = f32s(e, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], &[1, 3, 3, 1]);
    let out = run_values(e, &g, &[("x", x)], &["conv", "dw", "relu", "pool", "avg"]);
    // window sums 12, 16, 24, 28; minus 10; relu; relu6 caps at 6.
    assert_close(&out[0], &[2.0, 6.0, 14.0, 18.0], 1e-6);
    assert_close(&out[1], &[2.0, 6.0, 6.0, 6.0], 1e-6);
    assert_close(&out[2], &out[0], 0.0);
    assert_close(&out[3], &[5.0, 6.0, 8.0, 9.0], 0.0);
    assert_close(&out[4], &[3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0], 1e-6);
    e.dispose(x);
    g.dispose(e);
    assert_eq!(usage(e), before);
}

/// Shape → StridedSlice → Pack → Reshape: a flatten whose batch size comes from the input.
fn shape_subgraph(e: &mut Engine) {
    let minus_one = i32s(e, &[-1], &[]);
    let (begin, end, strides) = (i32s(e, &[0], &[1]), i32s(e, &[1], &[1]), i32s(e, &[1], &[1]));
    let mut g = load(
        e,
        vec![
            placeholder("x", &[-1, 2, 3], "DT_FLOAT"),
            konst("begin", "DT_INT32"),
            konst("end", "DT_INT32"),
            konst("strides", "DT_INT32"),
            konst("minus_one", "DT_INT32"),
            node("shape", "Shape", &["x"], json!({"T": {"type": "DT_FLOAT"}, "out_type": {"type": "DT_INT32"}})),
            node(
                "batch",
                "StridedSlice",
                &["shape", "begin", "end", "strides"],
                json!({"begin_mask": {"i": "0"}, "end_mask": {"i": "0"}, "ellipsis_mask": {"i": "0"}, "new_axis_mask": {"i": "0"}, "shrink_axis_mask": {"i": "1"}, "Index": {"type": "DT_INT32"}, "T": {"type": "DT_INT32"}}),
            ),
            node("dims", "Pack", &["batch", "minus_one"], json!({"axis": {"i": "0"}, "N": {"i": "2"}})),
            node("flat", "Reshape", &["x", "dims"], json!({})),
        ],
        vec![("begin", begin), ("end", end), ("strides", strides), ("minus_one", minus_one)],
    );
    let x = f32s(e, &(0..12).map(|v| v as f32).collect::<Vec<_>>(), &[2, 2, 3]);
    let before = e.memory().num_tensors;
    let ids = run(e, &g, &[("x", x)], &["flat", "dims", "batch"]);
    assert_eq!(e.memory().num_tensors, before + 3);
    assert_eq!(values(e, ids[0], &[2, 6], DType::Float32), (0..12).map(f64::from).collect::<Vec<_>>());
    assert_eq!(values(e, ids[1], &[2], DType::Int32), [2.0, -1.0]);
    assert_eq!(values(e, ids[2], &[], DType::Int32), [2.0]);
    for id in ids {
        e.dispose(id);
    }
    e.dispose(x);
    g.dispose(e);
}

/// begin, end, strides, [begin, end, ellipsis, new axis, shrink] masks, shape, values.
type SliceCase = (Vec<i32>, Vec<i32>, Vec<i32>, [i64; 5], Vec<usize>, Vec<f64>);

/// x[2,3,4] = 0..24 sliced as `x[begin:end:strides]` with masks; the expected values from
/// the index maps.
fn strided_slices(e: &mut Engine) {
    let x = f32s(e, &(0..24).map(|v| v as f32).collect::<Vec<_>>(), &[2, 3, 4]);
    let at = |i: usize, j: usize, k: usize| (i * 12 + j * 4 + k) as f64;
    // (begin, end, strides, [begin, end, ellipsis, new axis, shrink] masks, shape, values)
    let cases: Vec<SliceCase> = vec![
        (vec![0, 0, 0], vec![2, 3, 4], vec![1, 2, 1], [0; 5], vec![2, 2, 4], {
            let mut v = vec![];
            for i in 0..2 {
                for j in [0, 2] {
                    for k in 0..4 {
                        v.push(at(i, j, k));
                    }
                }
            }
            v
        }),
        (vec![1], vec![2], vec![1], [0, 0, 0, 0, 1], vec![3, 4], (0..12).map(|v| at(1, 0, 0) + v as f64).collect()),
        (vec![0, -1], vec![0, 0], vec![1, -1], [1, 3, 0, 0, 0], vec![2, 3, 4], {
            let mut v = vec![];
            for i in 0..2 {
                for j in [2, 1, 0] {
                    for k in 0..4 {
                        v.push(at(i, j, k));
                    }
                }
            }
            v
        }),
        (vec![0, 0], vec![0, 0], vec![1, 1], [0, 0, 1, 2, 0], vec![2, 3, 4, 1], (0..24).map(f64::from).collect()),
        (
            vec![0, 1, -1],
            vec![0, 3, 0],
            vec![1, 1, 1],
            [1, 1, 0, 0, 4],
            vec![2, 2],
            vec![at(0, 1, 3), at(0, 2, 3), at(1, 1, 3), at(1, 2, 3)],
        ),
        (vec![0, 0, 3], vec![2, 3, 0], vec![1, 1, -2], [3, 3, 0, 0, 0], vec![2, 3, 2], {
            let mut v = vec![];
            for i in 0..2 {
                for j in 0..3 {
                    for k in [3, 1] {
                        v.push(at(i, j, k));
                    }
                }
            }
            v
        }),
    ];
    for (begin, end, strides, m, shape, want) in cases {
        let n = begin.len();
        let consts = [i32s(e, &begin, &[n]), i32s(e, &end, &[n]), i32s(e, &strides, &[n])];
        let attr = json!({
            "begin_mask": {"i": m[0].to_string()}, "end_mask": {"i": m[1].to_string()},
            "ellipsis_mask": {"i": m[2].to_string()}, "new_axis_mask": {"i": m[3].to_string()},
            "shrink_axis_mask": {"i": m[4].to_string()}
        });
        let mut g = load(
            e,
            vec![
                placeholder("x", &[2, 3, 4], "DT_FLOAT"),
                konst("b", "DT_INT32"),
                konst("e", "DT_INT32"),
                konst("s", "DT_INT32"),
                node("y", "StridedSlice", &["x", "b", "e", "s"], attr),
            ],
            vec![("b", consts[0]), ("e", consts[1]), ("s", consts[2])],
        );
        let ids = run(e, &g, &[("x", x)], &["y"]);
        assert_eq!(values(e, ids[0], &shape, DType::Float32), want, "{begin:?} {end:?} {strides:?} {m:?}");
        e.dispose(ids[0]);
        g.dispose(e);
    }
    e.dispose(x);
}

/// Load errors name what is wrong and dispose the weights given.
fn load_errors(e: &mut Engine) {
    let before = usage(e);
    let cases: Vec<(Vec<Value>, Vec<&str>, &str)> = vec![
        (
            vec![placeholder("x", &[2], "DT_FLOAT"), node("y", "Relu", &["x", "nope:1"], json!({}))],
            vec![],
            "Node 'y' has input 'nope:1', but the graph has no node 'nope'",
        ),
        (vec![placeholder("x", &[2], "DT_FLOAT"), konst("w", "DT_FLOAT")], vec![], "The Const node 'w' has no weight"),
        (vec![placeholder("x", &[2], "DT_FLOAT"), placeholder("x", &[2], "DT_FLOAT")], vec![], "two nodes named 'x'"),
    ];
    for (nodes, names, msg) in cases {
        let weights: Vec<(String, TensorId)> = names.iter().map(|n| (n.to_string(), f32s(e, &[1.0], &[1]))).collect();
        let err = Graph::load(e, &graph(nodes), &weights).err().expect("load fails");
        assert!(err.0.contains(msg), "{:?} does not contain {msg:?}", err.0);
        assert_eq!(usage(e), before, "the weights given are disposed");
    }
    let err = Graph::load(e, "{\"node\": 3}", &[]).err().expect("load fails");
    assert!(err.0.contains("no node list"), "{}", err.0);
    // A weight that names no node is unused: disposed at load (tfjs keeps it), not an error.
    let (w, v) = (f32s(e, &[1.0], &[1]), f32s(e, &[2.0], &[1]));
    let nodes = vec![placeholder("x", &[2], "DT_FLOAT"), konst("w", "DT_FLOAT")];
    let mut g = Graph::load(e, &graph(nodes), &[("w".into(), w), ("v".into(), v)]).expect("loads");
    assert!(e.is_disposed(v) && !e.is_disposed(w), "the unused weight is disposed, the used one kept");
    g.dispose(e);
    assert_eq!(usage(e), before, "dispose frees the used weight");
}

/// Execution errors: tfjs's texts, and nothing left behind.
fn execute_errors(e: &mut Engine) {
    let w = f32s(e, &[2.0], &[1]);
    let mut g = load(
        e,
        vec![
            placeholder("x", &[-1, 2], "DT_FLOAT"),
            placeholder("y", &[2], "DT_INT32"),
            konst("w", "DT_FLOAT"),
            node("mul", "Mul", &["x", "w"], json!({"T": {"type": "DT_FLOAT"}})),
            node("relu", "Relu", &["mul"], json!({})),
            node("bad", "MatMul", &["relu", "relu"], json!({})),
            node("mystery", "MysteryOp", &["relu"], json!({})),
            node("where", "Where", &["relu"], json!({})),
            node("after_where", "Identity", &["where"], json!({})),
            node("both", "AddV2", &["mul", "y"], json!({})),
        ],
        vec![("w", w)],
    );
    let x = f32s(e, &[1.0, -2.0, 3.0, 4.0], &[2, 2]);
    let x3 = f32s(e, &[1.0, 2.0, 3.0], &[1, 3]);
    let xi = i32s(e, &[1, 2], &[1, 2]);
    fails(e, "The dict provided in model.execute(dict) has keys: [z,q:1] that are not part of graph", |e| {
        try_run(e, &g, &[("x", x), ("z", x), ("q:1", x)], &["relu"])
    });
    fails(e, "The shape of dict['x'] provided in model.execute(dict) must be [-1,2], but was [1,3]", |e| {
        try_run(e, &g, &[("x", x3)], &["relu"])
    });
    fails(e, "The dtype of dict['x'] provided in model.execute(dict) must be float32, but was int32", |e| {
        try_run(e, &g, &[("x", xi)], &["relu"])
    });
    fails(e, "The output 'nothing' is not found in the graph", |e| try_run(e, &g, &[("x", x)], &["relu", "nothing"]));
    fails(e, "Cannot compute the outputs [relu] from the provided inputs []. Missing the following inputs: [x]", |e| {
        try_run(e, &g, &[], &["relu"])
    });
    fails(
        e,
        "Cannot compute the outputs [both] from the provided inputs [x]. Missing the following inputs: [y]",
        |e| try_run(e, &g, &[("x", x)], &["both"]),
    );
    fails(
        e,
        "This execution contains the node 'where', which has the dynamic op 'Where'. Please use model.executeAsync() instead. Alternatively, to avoid the dynamic ops, specify the inputs [after_where]",
        |e| try_run(e, &g, &[("x", x)], &["after_where"]),
    );
    fails(e, "Unknown op 'MysteryOp'. File an issue at https://github.com/tensorflow/tfjs/issues so we can add it, or register a custom execution with tf.registerOp() (node 'mystery', op MysteryOp)", |e| {
        try_run(e, &g, &[("x", x)], &["relu", "mystery"])
    });
    // An op that fails mid-run (after mul and relu ran) leaves nothing behind.
    fails(e, "Error in matMul: inner shapes (2) and (1)", |e| {
        let v = f32s(e, &[1.0, 2.0], &[1, 2]);
        let r = try_run(e, &g, &[("x", v)], &["bad"]);
        e.dispose(v);
        r
    });
    // The node that failed is named.
    let v = f32s(e, &[1.0, 2.0], &[1, 2]);
    let err = try_run(e, &g, &[("x", v)], &["bad"]).expect_err("fails");
    assert!(err.0.contains("(node 'bad', op MatMul)"), "{}", err.0);
    e.dispose(v);
    // Feeding an intermediate node cuts the graph there: x is not needed.
    let m = f32s(e, &[-1.0, 5.0], &[1, 2]);
    let out = run_values(e, &g, &[("mul", m)], &["relu"]);
    assert_eq!(out[0], [0.0, 5.0]);
    // A fed or weight tensor asked for as an output is returned as it is.
    let ids = run(e, &g, &[("x", x)], &["x", "w"]);
    assert_eq!(ids, [x, g.weight_ids()[0]]);
    for t in [x, x3, xi, m] {
        e.dispose(t);
    }
    g.dispose(e);
}

/// Graphs with loops are marked, and executions through them refused with tfjs's text.
fn control_flow(e: &mut Engine) {
    let mut g = load(
        e,
        vec![
            placeholder("x", &[], "DT_FLOAT"),
            placeholder("p", &[], "DT_BOOL"),
            node("enter", "Enter", &["x"], json!({"frame_name": s("loop")})),
            node("merge", "Merge", &["enter", "next"], json!({})),
            node("switch", "Switch", &["merge", "p"], json!({})),
            node("body", "Relu", &["switch:1"], json!({})),
            node("next", "NextIteration", &["body"], json!({})),
            node("exit", "Exit", &["switch"], json!({})),
            node("out", "Identity", &["exit"], json!({})),
            node("side", "Neg", &["x"], json!({})),
        ],
        vec![],
    );
    assert!(g.control_flow());
    let x = f32s(e, &[2.0], &[]);
    fails(e, "which has the dynamic op 'Exit'. Please use model.executeAsync() instead.", |e| {
        try_run(e, &g, &[("x", x)], &["out"])
    });
    // A part of the graph without control flow runs.
    assert_eq!(run_values(e, &g, &[("x", x)], &["side"])[0], [-2.0]);
    e.dispose(x);
    g.dispose(e);
}

/// One op over constant inputs (the graph owns them): the values and shapes of the outputs.
fn one_op(
    e: &mut Engine,
    op: &str,
    inputs: Vec<TensorId>,
    attr: Value,
    outputs: &[&str],
) -> Vec<(Vec<usize>, Vec<f64>)> {
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("in{i}")).collect();
    let mut nodes: Vec<Value> = names.iter().map(|n| konst(n, "DT_FLOAT")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    nodes.push(node("op", op, &refs, attr));
    let weights: Vec<(&str, TensorId)> = refs.iter().copied().zip(inputs).collect();
    let mut g = load(e, nodes, weights);
    let before = e.memory().num_tensors;
    let ids = run(e, &g, &[], outputs);
    assert_eq!(e.memory().num_tensors, before + ids.len(), "{op}: an execution adds only its outputs");
    let out = ids
        .iter()
        .map(|&id| {
            let s = e.shape(id).unwrap().to_vec();
            let v = values(e, id, &s, e.dtype(id).unwrap());
            (s, v)
        })
        .collect();
    for id in ids {
        e.dispose(id);
    }
    g.dispose(e);
    out
}

fn ops_with_attributes(e: &mut Engine) {
    let seq = |e: &mut Engine, n: usize, shape: &[usize]| f32s(e, &(0..n).map(|v| v as f32).collect::<Vec<_>>(), shape);
    // Transpose
    let (x, p) = (seq(e, 6, &[2, 3]), i32s(e, &[1, 0], &[2]));
    assert_eq!(
        one_op(e, "Transpose", vec![x, p], json!({}), &["op"]),
        [(vec![3, 2], vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0])]
    );
    // ConcatV2 (axis last) and Concat (axis first)
    let (a, b, ax) = (seq(e, 2, &[1, 2]), seq(e, 2, &[1, 2]), i32s(e, &[1], &[]));
    assert_eq!(
        one_op(e, "ConcatV2", vec![a, b, ax], json!({"N": {"i": "2"}}), &["op"]),
        [(vec![1, 4], vec![0.0, 1.0, 0.0, 1.0])]
    );
    let (ax, a, b) = (i32s(e, &[0], &[]), seq(e, 2, &[1, 2]), seq(e, 2, &[1, 2]));
    assert_eq!(one_op(e, "Concat", vec![ax, a, b], json!({"N": {"i": "2"}}), &["op"])[0].0, [2, 2]);
    // Pad, PadV2, MirrorPad
    let (x, p) = (seq(e, 2, &[1, 2]), i32s(e, &[0, 0, 1, 2], &[2, 2]));
    assert_eq!(one_op(e, "Pad", vec![x, p], json!({}), &["op"]), [(vec![1, 5], vec![0.0, 0.0, 1.0, 0.0, 0.0])]);
    let (x, p, v) = (seq(e, 2, &[1, 2]), i32s(e, &[1, 0, 0, 1], &[2, 2]), f32s(e, &[7.0], &[]));
    assert_eq!(
        one_op(e, "PadV2", vec![x, p, v], json!({}), &["op"]),
        [(vec![2, 3], vec![7.0, 7.0, 7.0, 0.0, 1.0, 7.0])]
    );
    let (x, p) = (seq(e, 3, &[3]), i32s(e, &[2, 1], &[1, 2]));
    assert_eq!(
        one_op(e, "MirrorPad", vec![x, p], json!({"mode": s("REFLECT")}), &["op"]),
        [(vec![6], vec![2.0, 1.0, 0.0, 1.0, 2.0, 1.0])]
    );
    let (x, p) = (seq(e, 3, &[3]), i32s(e, &[2, 1], &[1, 2]));
    assert_eq!(
        one_op(e, "MirrorPad", vec![x, p], json!({"mode": s("SYMMETRIC")}), &["op"]),
        [(vec![6], vec![1.0, 0.0, 0.0, 1.0, 2.0, 2.0])]
    );
    // Squeeze (deprecated squeeze_dims; an empty list squeezes all), ExpandDims
    let x = seq(e, 2, &[1, 2, 1]);
    assert_eq!(one_op(e, "Squeeze", vec![x], json!({"squeeze_dims": ilist(&[0])}), &["op"])[0].0, [2, 1]);
    let x = seq(e, 2, &[1, 2, 1]);
    assert_eq!(one_op(e, "Squeeze", vec![x], json!({"squeeze_dims": {"list": {}}}), &["op"])[0].0, [2]);
    let (x, a) = (seq(e, 2, &[2]), i32s(e, &[-1], &[]));
    assert_eq!(one_op(e, "ExpandDims", vec![x, a], json!({}), &["op"])[0].0, [2, 1]);
    // Mean with keep_dims, Sum over a scalar axis, Max, ArgMax
    let (x, a) = (seq(e, 6, &[2, 3]), i32s(e, &[1], &[1]));
    assert_eq!(
        one_op(e, "Mean", vec![x, a], json!({"keep_dims": {"b": true}}), &["op"]),
        [(vec![2, 1], vec![1.0, 4.0])]
    );
    let (x, a) = (seq(e, 6, &[2, 3]), i32s(e, &[0], &[]));
    assert_eq!(one_op(e, "Sum", vec![x, a], json!({}), &["op"]), [(vec![3], vec![3.0, 5.0, 7.0])]);
    let (x, a) = (f32s(e, &[1.0, 9.0, 3.0, 7.0], &[2, 2]), i32s(e, &[1], &[]));
    assert_eq!(one_op(e, "ArgMax", vec![x, a], json!({}), &["op"]), [(vec![2], vec![1.0, 1.0])]);
    // Cast to int32 (truncates), to bool
    let x = f32s(e, &[1.7, -2.5, 0.0], &[3]);
    assert_eq!(
        one_op(e, "Cast", vec![x], json!({"DstT": {"type": "DT_INT64"}}), &["op"]),
        [(vec![3], vec![1.0, -2.0, 0.0])]
    );
    // Tile
    let (x, r) = (seq(e, 2, &[1, 2]), i32s(e, &[2, 2], &[2]));
    assert_eq!(
        one_op(e, "Tile", vec![x, r], json!({}), &["op"]),
        [(vec![2, 4], vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0])]
    );
    // Split (two outputs), SplitV with -1
    let (a, x) = (i32s(e, &[1], &[]), seq(e, 4, &[1, 4]));
    let out = one_op(e, "Split", vec![a, x], json!({"num_split": {"i": "2"}}), &["op", "op:1"]);
    assert_eq!(out, [(vec![1, 2], vec![0.0, 1.0]), (vec![1, 2], vec![2.0, 3.0])]);
    let (x, sz, a) = (seq(e, 4, &[4]), i32s(e, &[1, -1], &[2]), i32s(e, &[0], &[]));
    let out = one_op(e, "SplitV", vec![x, sz, a], json!({}), &["op:1"]);
    assert_eq!(out, [(vec![3], vec![1.0, 2.0, 3.0])]);
    // Slice with size -1, GatherV2 with axis, Gather
    let (x, b, z) = (seq(e, 6, &[2, 3]), i32s(e, &[1, 1], &[2]), i32s(e, &[1, -1], &[2]));
    assert_eq!(one_op(e, "Slice", vec![x, b, z], json!({}), &["op"]), [(vec![1, 2], vec![4.0, 5.0])]);
    let (x, i, a) = (seq(e, 6, &[2, 3]), i32s(e, &[2, 0], &[2]), i32s(e, &[1], &[]));
    assert_eq!(
        one_op(e, "GatherV2", vec![x, i, a], json!({"batch_dims": {"i": "0"}}), &["op"]),
        [(vec![2, 2], vec![2.0, 0.0, 5.0, 3.0])]
    );
    // OneHot, Range, Fill
    let (i, d, on, off) = (i32s(e, &[1, 0], &[2]), i32s(e, &[3], &[]), f32s(e, &[5.0], &[]), f32s(e, &[-1.0], &[]));
    assert_eq!(
        one_op(e, "OneHot", vec![i, d, on, off], json!({"T": {"type": "DT_FLOAT"}, "axis": {"i": "-1"}}), &["op"]),
        [(vec![2, 3], vec![-1.0, 5.0, -1.0, 5.0, -1.0, -1.0])]
    );
    let (a, b, st) = (i32s(e, &[1], &[]), i32s(e, &[7], &[]), i32s(e, &[2], &[]));
    assert_eq!(
        one_op(e, "Range", vec![a, b, st], json!({"Tidx": {"type": "DT_INT32"}}), &["op"]),
        [(vec![3], vec![1.0, 3.0, 5.0])]
    );
    let (sh, v) = (i32s(e, &[2, 1], &[2]), f32s(e, &[4.0], &[]));
    assert_eq!(
        one_op(e, "Fill", vec![sh, v], json!({"T": {"type": "DT_FLOAT"}}), &["op"]),
        [(vec![2, 1], vec![4.0, 4.0])]
    );
    // TopKV2's second output, Unpack's second output
    let (x, k) = (f32s(e, &[1.0, 9.0, 3.0, 7.0], &[4]), i32s(e, &[2], &[]));
    assert_eq!(
        one_op(e, "TopKV2", vec![x, k], json!({"sorted": {"b": true}}), &["op:1", "op"]),
        [(vec![2], vec![1.0, 3.0]), (vec![2], vec![9.0, 7.0])]
    );
    let x = seq(e, 6, &[2, 3]);
    assert_eq!(
        one_op(e, "Unpack", vec![x], json!({"axis": {"i": "1"}, "num": {"i": "3"}}), &["op:1"]),
        [(vec![2], vec![1.0, 4.0])]
    );
    // Pack of scalars, AddN, Reverse, ClipByValue, LeakyRelu's alpha, Prelu
    let (a, b) = (f32s(e, &[1.0], &[]), f32s(e, &[2.0], &[]));
    assert_eq!(one_op(e, "Pack", vec![a, b], json!({"axis": {"i": "0"}}), &["op"]), [(vec![2], vec![1.0, 2.0])]);
    let (a, b, c) = (seq(e, 2, &[2]), seq(e, 2, &[2]), seq(e, 2, &[2]));
    assert_eq!(one_op(e, "AddN", vec![a, b, c], json!({}), &["op"]), [(vec![2], vec![0.0, 3.0])]);
    let (x, a) = (seq(e, 6, &[2, 3]), i32s(e, &[1], &[1]));
    assert_eq!(
        one_op(e, "ReverseV2", vec![x, a], json!({}), &["op"]),
        [(vec![2, 3], vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0])]
    );
    let (x, lo, hi) = (f32s(e, &[-5.0, 0.5, 5.0], &[3]), f32s(e, &[-1.0], &[]), f32s(e, &[1.0], &[]));
    assert_eq!(one_op(e, "ClipByValue", vec![x, lo, hi], json!({}), &["op"]), [(vec![3], vec![-1.0, 0.5, 1.0])]);
    let x = f32s(e, &[-2.0, 3.0], &[2]);
    assert_eq!(one_op(e, "LeakyRelu", vec![x], json!({"alpha": {"f": 0.25}}), &["op"]), [(vec![2], vec![-0.5, 3.0])]);
    // FusedBatchNormV3: (x - mean) * scale / sqrt(var + eps) + offset
    let (x, sc, of, m, v) = (
        f32s(e, &[1.0, 2.0, 3.0, 4.0], &[2, 2]),
        f32s(e, &[2.0, 1.0], &[2]),
        f32s(e, &[0.5, 0.0], &[2]),
        f32s(e, &[1.0, 2.0], &[2]),
        f32s(e, &[4.0, 1.0], &[2]),
    );
    let out = one_op(
        e,
        "FusedBatchNormV3",
        vec![x, sc, of, m, v],
        json!({"epsilon": {"f": 0.0}, "is_training": {"b": false}}),
        &["op"],
    );
    assert_close(&out[0].1, &[0.5, 0.0, 2.5, 2.0], 1e-6);
    // _FusedMatMul with BiasAdd and Relu, transpose_b
    let (a, b, bias) =
        (f32s(e, &[1.0, 2.0], &[1, 2]), f32s(e, &[1.0, 1.0, -1.0, -1.0], &[2, 2]), f32s(e, &[0.5, 0.5], &[2]));
    let attr = json!({"fused_ops": {"list": {"s": [b64("BiasAdd"), b64("Relu")]}}, "num_args": {"i": "1"}, "transpose_b": {"b": true}});
    assert_eq!(one_op(e, "_FusedMatMul", vec![a, b, bias], attr, &["op"]), [(vec![1, 2], vec![3.5, 0.0])]);
    // LogSoftmax, ResizeBilinear (align corners), Select
    let x = f32s(e, &[0.0, 0.0], &[1, 2]);
    assert_close(&one_op(e, "LogSoftmax", vec![x], json!({}), &["op"])[0].1, &[-(2f64.ln()); 2], 1e-6);
    let (x, size) = (f32s(e, &[0.0, 2.0], &[1, 1, 2, 1]), i32s(e, &[1, 3], &[2]));
    let out = one_op(
        e,
        "ResizeBilinear",
        vec![x, size],
        json!({"align_corners": {"b": true}, "half_pixel_centers": {"b": false}}),
        &["op"],
    );
    assert_eq!(out, [(vec![1, 1, 3, 1], vec![0.0, 1.0, 2.0])]);
    let (c, a, b) = (tidytensor_suite::bools(e, &[1, 0], &[2]), f32s(e, &[1.0, 2.0], &[2]), f32s(e, &[8.0, 9.0], &[2]));
    assert_eq!(one_op(e, "SelectV2", vec![c, a, b], json!({}), &["op"]), [(vec![2], vec![1.0, 9.0])]);
    // Shape, Size, Rank, ShapeN (float32, as tfjs makes it)
    let x = seq(e, 6, &[2, 3]);
    assert_eq!(one_op(e, "ShapeN", vec![x], json!({}), &["op"]), [(vec![2], vec![2.0, 3.0])]);
    let x = seq(e, 6, &[2, 3]);
    assert_eq!(one_op(e, "Size", vec![x], json!({}), &["op"]), [(vec![], vec![6.0])]);
    // DepthToSpace: [1,1,1,4] -> [1,2,2,1]
    let x = seq(e, 4, &[1, 1, 1, 4]);
    assert_eq!(
        one_op(e, "DepthToSpace", vec![x], json!({"block_size": {"i": "2"}, "data_format": s("NHWC")}), &["op"]),
        [(vec![1, 2, 2, 1], vec![0.0, 1.0, 2.0, 3.0])]
    );
    // SpaceToBatchND: [1,2,2,1] block [2,2] -> [4,1,1,1]; BatchToSpaceND back
    let (x, b, p) = (seq(e, 4, &[1, 2, 2, 1]), i32s(e, &[2, 2], &[2]), i32s(e, &[0, 0, 0, 0], &[2, 2]));
    assert_eq!(
        one_op(e, "SpaceToBatchND", vec![x, b, p], json!({}), &["op"]),
        [(vec![4, 1, 1, 1], vec![0.0, 1.0, 2.0, 3.0])]
    );
    let (x, b, p) = (seq(e, 4, &[4, 1, 1, 1]), i32s(e, &[2, 2], &[2]), i32s(e, &[0, 0, 0, 1], &[2, 2]));
    assert_eq!(one_op(e, "BatchToSpaceND", vec![x, b, p], json!({}), &["op"]), [(vec![1, 2, 1, 1], vec![0.0, 2.0])]);
    // GatherNd: rows [1] and [0] of a [2,2]
    let (x, i) = (seq(e, 4, &[2, 2]), i32s(e, &[1, 0, 0, 1], &[2, 2]));
    assert_eq!(one_op(e, "GatherNd", vec![x, i], json!({}), &["op"]), [(vec![2], vec![2.0, 1.0])]);
    let (a, b) = (i32s(e, &[2, 1], &[2]), i32s(e, &[3], &[1]));
    assert_eq!(one_op(e, "BroadcastArgs", vec![a, b], json!({}), &["op"]), [(vec![2], vec![2.0, 3.0])]);
    // Conv2DBackpropInput: a 1x1 filter of 2 scales dy into the output shape
    let (sh, f, dy) = (i32s(e, &[1, 2, 2, 1], &[4]), f32s(e, &[2.0], &[1, 1, 1, 1]), seq(e, 4, &[1, 2, 2, 1]));
    let attr = json!({"strides": ilist(&[1, 1, 1, 1]), "padding": s("SAME"), "data_format": s("NHWC")});
    assert_eq!(
        one_op(e, "Conv2DBackpropInput", vec![sh, f, dy], attr, &["op"]),
        [(vec![1, 2, 2, 1], vec![0.0, 2.0, 4.0, 6.0])]
    );
    // CropAndResize: the whole 2x2 image to 3x3, bilinear
    let (img, bx, bi, sz) = (
        seq(e, 4, &[1, 2, 2, 1]),
        f32s(e, &[0.0, 0.0, 1.0, 1.0], &[1, 4]),
        i32s(e, &[0], &[1]),
        i32s(e, &[3, 3], &[2]),
    );
    let attr = json!({"method": s("bilinear"), "extrapolation_value": {"f": 0}});
    let out = one_op(e, "CropAndResize", vec![img, bx, bi, sz], attr, &["op"]);
    assert_eq!(out[0].0, [1, 3, 3, 1]);
    assert_close(&out[0].1, &[0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0], 1e-6);
}

/// The topology and weight manifest of the nsfwjs MobileNetV2 graph model bundled in
/// node_modules (a UMD script: Node evaluates it), or None when either is missing.
fn nsfwjs_model() -> Option<Value> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../node_modules/nsfwjs/dist/models/mobilenet_v2_mid");
    let file = dir.join("model.min.js");
    if !file.exists() {
        eprintln!("SKIPPED: {} is absent", file.display());
        return None;
    }
    let script = format!(
        "const m = require({:?}); process.stdout.write(JSON.stringify({{t: m.modelTopology, w: m.weightsManifest}}))",
        file.to_string_lossy()
    );
    let out = std::process::Command::new("node").args(["-e", &script]).output().ok().filter(|o| o.status.success());
    let Some(out) = out else {
        eprintln!("SKIPPED: node could not read {}", file.display());
        return None;
    };
    serde_json::from_slice(&out.stdout).ok()
}

/// The real MobileNetV2 graph (Placeholder, Const, Mul, Sub, _FusedConv2D,
/// FusedDepthwiseConv2dNative, AddV2, AvgPool, Squeeze, _FusedMatMul, Softmax, Identity) with
/// zero weights of the manifest's shapes: softmax of zero logits, 0.2 for each of 5 classes.
fn nsfwjs_mobilenet(e: &mut Engine) {
    let Some(model) = nsfwjs_model() else { return };
    let before = usage(e);
    let mut weights = Vec::new();
    for group in model["w"].as_array().unwrap() {
        for w in group["weights"].as_array().unwrap() {
            let shape: Vec<usize> =
                w["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
            let t = e.fill(&shape, 0.0, DType::Float32).unwrap();
            weights.push((w["name"].as_str().unwrap().to_string(), t));
        }
    }
    let mut g = Graph::load(e, &model["t"].to_string(), &weights).expect("load");
    assert!(!g.control_flow());
    let ins: Vec<Value> = g.inputs().iter().map(|s| s.to_json()).collect();
    assert_eq!(Value::Array(ins), json!([{"name": "input", "shape": [null, 224, 224, 3], "dtype": "float32"}]));
    assert_eq!(g.outputs()[0].name, "Identity");
    let loaded = usage(e);
    let x = e.fill(&[1, 224, 224, 3], 0.5, DType::Float32).unwrap();
    let with_x = usage(e);
    let t0 = std::time::Instant::now();
    let ids = run(e, &g, &[("input", x)], &["Identity"]);
    eprintln!(
        "nsfwjs mobilenet_v2_mid, batch 1, on {}: {:.1} ms",
        e.backend_name().unwrap_or("?"),
        t0.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(e.memory().num_tensors, with_x.0 + 1, "an execution adds only its output");
    assert_close(&values(e, ids[0], &[1, 5], DType::Float32), &[0.2; 5], 1e-6);
    e.dispose(ids[0]);
    e.dispose(x);
    assert_eq!(usage(e), loaded);
    assert_eq!(g.dispose(e), weights.len());
    assert_eq!(usage(e), before);
}

backend_tests!(
    dense_layer,
    inputs_and_outputs,
    fused_conv,
    shape_subgraph,
    strided_slices,
    load_errors,
    execute_errors,
    control_flow,
    ops_with_attributes,
    nsfwjs_mobilenet,
);
