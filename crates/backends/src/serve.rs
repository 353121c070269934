//! The serving thread, where predictions run off JavaScript's threads (`predictAsync`, and
//! `executeAsync` on a graph model). One thread for the process, with an engine of its own and
//! a kernel pool of its own in which it is one of the threads, as Node's main thread is in the
//! global pool: a prediction there splits its kernels over every core as one on the main thread
//! does. Jobs run one after another, in the order they came (batching is how several requests
//! share one run).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};
use tidytensor_core::{bail, with_engine, Engine, Result};

/// Work for the serving thread, run on its engine. A job that panics is dropped there, with
/// everything it holds (the caller learns of it by what it held: see the binding's Settle).
pub type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// Queues a job on the serving thread, starting the thread on first use.
pub fn submit(job: Job) -> Result<()> {
    static QUEUE: OnceLock<std::result::Result<Mutex<Sender<Job>>, String>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("tidytensor-serve".into())
            .spawn(move || serve(rx))
            .map(|_| Mutex::new(tx))
            .map_err(|e| e.to_string())
    });
    match queue {
        Ok(tx) => match tx.lock().unwrap_or_else(|e| e.into_inner()).send(job) {
            Ok(()) => Ok(()),
            Err(_) => bail!("tidytensor's serving thread has stopped"),
        },
        Err(why) => bail!("tidytensor could not start its serving thread: {why}"),
    }
}

/// Lowers the calling thread's scheduling priority (nice 10): the serving threads use every
/// core, and a JavaScript thread that wakes (a request, a timer) should get a core at once,
/// not after their time slice. Measured with bench/serve.js at 8 concurrent requests on 2
/// cores, two runs each: the event loop's lag p99 was 4.1-4.2 ms (batched) and 2.5 ms
/// (unbatched) with it, 4.6-4.7 and 3.1-4.2 ms without, at the same throughput.
fn yield_to_javascript() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread (Linux: `who` 0 is the calling task) only
    // changes its nice value.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

fn serve(jobs: Receiver<Job>) {
    yield_to_javascript();
    // Without its own pool (should building it fail) the thread's kernels use the global one.
    let _pool = rayon::ThreadPoolBuilder::new()
        .num_threads(tidytensor_cpu::pool_threads())
        .use_current_thread()
        .thread_name(|i| format!("tidytensor-serve-{i}"))
        .start_handler(|_| yield_to_javascript())
        .build();
    // The default backend as on a JavaScript thread; each job activates the one it needs.
    let _ = with_engine(crate::init);
    for job in jobs {
        with_engine(|e| {
            if catch_unwind(AssertUnwindSafe(|| job(e))).is_err() {
                e.abort_kernels();
            }
        });
    }
}
