//! Promises that native threads settle: a value read off the JS thread (`tensor.data()`) or a
//! prediction run on the serving thread.

use napi::bindgen_prelude::*;
use napi::CleanupEnvHook;
use std::sync::{Arc, Mutex};

type Resolve<T> = Box<dyn FnOnce(Env) -> Result<T> + Send>;

/// Whether the JavaScript environment that awaits the Promise still exists. A worker can be
/// terminated while work for it is in flight; its threadsafe functions are then freed, and
/// settling the Promise would touch freed memory (the process aborted). An env cleanup hook
/// clears this under the lock, and a Promise settles only while holding the lock and seeing it
/// set. The hook is registered after the Promise's threadsafe function, so it runs first.
type EnvAlive = Arc<Mutex<bool>>;

/// The cleanup hook's handle, removed once the Promise settles.
struct Hook(CleanupEnvHook<EnvAlive>);
// SAFETY: the handle is only used on the JS thread that registered it (in the resolver, which
// napi runs on that thread); elsewhere it is merely carried.
unsafe impl Send for Hook {}

/// A Promise's deferred that is settled exactly once, from any thread: dropped unsettled (say,
/// by a panic on the thread doing the work) it rejects, because an unsettled deferred would hold
/// the event loop open.
pub(crate) struct Settle<T: ToNapiValue + 'static> {
    deferred: Option<napi::JsDeferred<T, Resolve<T>>>,
    alive: EnvAlive,
    hook: Option<Hook>,
    /// What was abandoned, for the rejection's text.
    what: &'static str,
}

impl<T: ToNapiValue + 'static> Settle<T> {
    /// A new Promise, and the deferred that settles it.
    pub(crate) fn new<'e>(env: &'e Env, what: &'static str) -> Result<(Settle<T>, Object<'e>)> {
        let (deferred, promise) = env.create_deferred::<T, Resolve<T>>()?;
        let alive: EnvAlive = Arc::new(Mutex::new(true));
        let hook = env.add_env_cleanup_hook(alive.clone(), |a| *a.lock().unwrap_or_else(|e| e.into_inner()) = false)?;
        Ok((Settle { deferred: Some(deferred), alive, hook: Some(Hook(hook)), what }, promise))
    }

    /// Settles the Promise with what `resolve` gives, run on the JS thread; nothing when the
    /// environment is gone (`resolve` is dropped here, with what it holds).
    pub(crate) fn finish(&mut self, resolve: impl FnOnce(Env) -> Result<T> + Send + 'static) {
        let Some(d) = self.deferred.take() else { return };
        let alive = self.alive.lock().unwrap_or_else(|e| e.into_inner());
        if !*alive {
            return; // nobody awaits, and napi must not be called
        }
        let hook = self.hook.take();
        d.resolve(Box::new(move |env| {
            if let Some(Hook(h)) = hook {
                let _ = env.remove_env_cleanup_hook(h);
            }
            resolve(env)
        }));
    }
}

impl<T: ToNapiValue + 'static> Drop for Settle<T> {
    fn drop(&mut self) {
        let what = self.what;
        self.finish(move |_| Err(Error::from_reason(format!("tidytensor: the {what} was abandoned"))));
    }
}
