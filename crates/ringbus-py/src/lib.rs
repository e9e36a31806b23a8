//! `ringbus._native`: the Python bindings of ringbus — glue only. Every behaviour lives in
//! the core crate; this crate maps its types to Python classes, its errors to Python
//! exceptions (`errors`, one place), its blocking calls to GIL-free waits that Ctrl-C
//! interrupts (`blocking`), and its shared memory to buffer exports that can never
//! outlive the mapping (`buffer`), which numpy arrays build on (`arrays`). Queues and
//! services move numpy values as bytes (`commands`, `queue`, `service`).
//!
//! The pure-Python package around it (`python/ringbus`) adds the exception classes, the
//! numpy array checks, the asyncio helpers and the benchmark.

mod arrays;
mod blocking;
mod buffer;
mod commands;
mod errors;
mod events;
mod handle;
mod node;
mod publisher;
mod queue;
mod service;
mod subscriber;
mod waitset;

use pyo3::prelude::*;

/// The compiled part of ringbus; import `ringbus` instead.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<node::Wake>()?;
    m.add_class::<node::Node>()?;
    m.add_class::<node::Topic>()?;
    m.add_class::<publisher::Publisher>()?;
    m.add_class::<publisher::Loan>()?;
    m.add_class::<subscriber::Subscriber>()?;
    m.add_class::<subscriber::Sample>()?;
    m.add_class::<queue::Queue>()?;
    m.add_class::<queue::Producer>()?;
    m.add_class::<queue::Consumer>()?;
    m.add_class::<service::Server>()?;
    m.add_class::<service::Client>()?;
    m.add_class::<events::Latch>()?;
    m.add_class::<events::Semaphore>()?;
    m.add_class::<events::Word>()?;
    m.add_class::<waitset::WaitSet>()?;
    m.add_class::<waitset::Event>()?;
    m.add("SLICE_SECONDS", blocking::SLICE.as_secs_f64())?;
    Ok(())
}
