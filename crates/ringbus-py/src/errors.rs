//! The one place where the core's errors become Python exceptions.
//!
//! The exception classes live in `ringbus/errors.py` (a Python hierarchy with multiple
//! inheritance: `Timeout` is also a `TimeoutError`, `Closed` a `ValueError`, ...); every
//! method of the module returns [`Error`], and its conversion into a `PyErr` picks the
//! class here, keeping the core's message, which says what to do.

use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;
use ringbus::service::CallError;
use ringbus::{LoanError, OpenError, QueueError, ReceiveError, SemaphoreFull, TakeError, TimedOut, WaitSetError};

/// Everything a method of the module can fail with.
#[derive(Debug)]
pub(crate) enum Error {
    Open(OpenError),
    Loan(LoanError),
    /// A loan waited for a reliable subscriber as long as the publisher's `when_full`
    /// allows (the core's `LoanError::Full`, saying how long in all): a `Timeout`.
    LoanTimeout(LoanError),
    Take(TakeError),
    Receive(ReceiveError),
    WaitSet(WaitSetError),
    Queue(QueueError),
    Call(CallError),
    SemaphoreFull(SemaphoreFull),
    Timeout,
    /// The object was closed or released; the message says which and what to do.
    Closed(String),
    /// A Python object still views memory that the call would give away.
    Exported(String),
    /// An argument the core never sees (a negative timeout, a misaligned word, ...).
    InvalidArgument(String),
    /// A second loan while one is out, ...
    Busy(String),
    Io(std::io::Error),
    /// Already a Python exception (a `TypeError` from an argument, ...).
    Py(PyErr),
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

macro_rules! from_core {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        $(impl From<$ty> for Error {
            fn from(e: $ty) -> Error {
                Error::$variant(e)
            }
        })*
    };
}
from_core!(
    Open(OpenError),
    Loan(LoanError),
    Take(TakeError),
    Receive(ReceiveError),
    WaitSet(WaitSetError),
    Queue(QueueError),
    Call(CallError),
    SemaphoreFull(SemaphoreFull),
    Io(std::io::Error),
    Py(PyErr),
);

impl From<TimedOut> for Error {
    fn from(_: TimedOut) -> Error {
        Error::Timeout
    }
}

/// The classes of `ringbus.errors`, by name.
#[derive(Debug, Clone, Copy)]
enum Class {
    Timeout,
    Closed,
    InvalidArgument,
    Mismatch,
    Corrupted,
    LimitReached,
    NoSpace,
    NotFound,
    IoError,
    Unsupported,
    ServerGone,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Timeout => "Timeout",
            Class::Closed => "Closed",
            Class::InvalidArgument => "InvalidArgument",
            Class::Mismatch => "Mismatch",
            Class::Corrupted => "Corrupted",
            Class::LimitReached => "LimitReached",
            Class::NoSpace => "NoSpace",
            Class::NotFound => "NotFound",
            Class::IoError => "IoError",
            Class::Unsupported => "Unsupported",
            Class::ServerGone => "ServerGone",
        }
    }
}

fn open_class(e: &OpenError) -> Class {
    match e {
        OpenError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => Class::NotFound,
        OpenError::Io { .. } | OpenError::RootUnusable { .. } => Class::IoError,
        OpenError::NoSpace { .. } | OpenError::NoInodes { .. } => Class::NoSpace,
        OpenError::InvalidName { .. } | OpenError::InvalidConfig { .. } => Class::InvalidArgument,
        OpenError::ConfigMismatch { .. } | OpenError::TypeMismatch { .. } | OpenError::VersionMismatch { .. } => {
            Class::Mismatch
        }
        OpenError::Foreign { .. } | OpenError::Corrupted { .. } => Class::Corrupted,
        OpenError::TooMany { .. } => Class::LimitReached,
        OpenError::LockTimedOut { .. } => Class::Timeout,
        OpenError::Interrupted { .. } => Class::IoError,
    }
}

fn take_class(e: &TakeError) -> Class {
    match e {
        TakeError::HeldLimit { .. } => Class::LimitReached,
        TakeError::Corrupted { .. } | TakeError::Truncated { .. } | TakeError::TopicTruncated { .. } => {
            Class::Corrupted
        }
        TakeError::Attach(open) => open_class(open),
    }
}

fn queue_class(e: &QueueError) -> Class {
    match e {
        QueueError::CommandSize { .. } => Class::InvalidArgument,
        _ => Class::Corrupted,
    }
}

/// The class and message of an error that is not a Python exception already.
fn classify(e: &Error) -> (Class, String) {
    let class = match e {
        Error::Open(e) => open_class(e),
        Error::Loan(LoanError::TooLarge { .. }) => Class::InvalidArgument,
        Error::Loan(LoanError::PoolExhausted { .. }) => Class::LimitReached,
        Error::Loan(LoanError::TypeMismatch { .. }) => Class::Mismatch,
        Error::Loan(LoanError::NoSpace { .. }) => Class::NoSpace,
        Error::Loan(LoanError::PoolBudget { .. }) => Class::LimitReached,
        Error::Loan(LoanError::Reserve { .. }) => Class::IoError,
        Error::Loan(LoanError::Full { .. }) => Class::LimitReached,
        Error::Loan(LoanError::Truncated { .. }) => Class::Corrupted,
        Error::LoanTimeout(_) => Class::Timeout,
        Error::Take(e) => take_class(e),
        Error::Receive(ReceiveError::Timeout) | Error::Timeout => Class::Timeout,
        Error::Receive(ReceiveError::PollingOnly) => Class::Unsupported,
        Error::Receive(ReceiveError::Take(e)) => take_class(e),
        Error::WaitSet(WaitSetError::PollingOnly | WaitSetError::Unsupported { .. }) => Class::Unsupported,
        Error::WaitSet(WaitSetError::TooManyWords) => Class::LimitReached,
        Error::WaitSet(WaitSetError::NothingToWaitFor) => Class::InvalidArgument,
        Error::WaitSet(WaitSetError::Io(_)) | Error::Io(_) => Class::IoError,
        Error::WaitSet(WaitSetError::Peer(e)) => open_class(e),
        Error::Queue(e) | Error::Call(CallError::Queue(e)) => queue_class(e),
        Error::Call(CallError::Timeout) => Class::Timeout,
        Error::Call(CallError::ServerGone) => Class::ServerGone,
        Error::Call(CallError::TypeMismatch { .. }) => Class::Mismatch,
        Error::SemaphoreFull(_) | Error::Busy(_) => Class::LimitReached,
        Error::Closed(_) => Class::Closed,
        Error::InvalidArgument(_) => Class::InvalidArgument,
        Error::Exported(_) | Error::Py(_) => unreachable!("raised as they are"),
    };
    let message = match e {
        Error::Open(e) => e.to_string(),
        Error::Loan(e) | Error::LoanTimeout(e) => e.to_string(),
        Error::Take(e) => e.to_string(),
        Error::Receive(e) => e.to_string(),
        Error::WaitSet(e) => e.to_string(),
        Error::Queue(e) => e.to_string(),
        Error::Call(e) => e.to_string(),
        Error::SemaphoreFull(e) => e.to_string(),
        Error::Timeout => "the wait timed out; pass a longer timeout, or None to wait forever".into(),
        Error::Io(e) => e.to_string(),
        Error::Closed(m) | Error::InvalidArgument(m) | Error::Busy(m) => m.clone(),
        Error::Exported(_) | Error::Py(_) => unreachable!("raised as they are"),
    };
    (class, message)
}

static ERRORS_MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn exception(py: Python<'_>, class: Class, message: String) -> PyErr {
    let module = ERRORS_MODULE.get_or_try_init(py, || py.import("ringbus.errors").map(Bound::unbind));
    let class = module.and_then(|m| m.bind(py).getattr(class.name())).and_then(|c| Ok(c.cast_into::<PyType>()?));
    match class {
        Ok(class) => PyErr::from_type(class, message),
        Err(import_failed) => import_failed,
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Py(e) => e,
            Error::Exported(message) => PyBufferError::new_err(message),
            e => {
                let (class, message) = classify(&e);
                Python::attach(|py| exception(py, class, message))
            }
        }
    }
}

/// What a closed handle says when used.
pub(crate) fn closed(what: &str) -> Error {
    Error::Closed(format!("this {what} was closed; open a new one"))
}
