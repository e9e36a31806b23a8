//! CPU time and context switches of this process or thread, from `getrusage`.
//!
//! The kernel keeps the *total* CPU time of a task exactly, but (without
//! `CONFIG_VIRT_CPU_ACCOUNTING_GEN`) splits it into user and system time by sampling one
//! timer tick in `CONFIG_HZ`: the split is a statistical estimate, good over many ticks.

use anyhow::Result;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub user_us: u64,
    pub sys_us: u64,
    /// Context switches because the task blocked (`ru_nvcsw`).
    pub voluntary: u64,
    /// Context switches because the task was preempted (`ru_nivcsw`).
    pub involuntary: u64,
}

fn micros(t: libc::timeval) -> u64 {
    (t.tv_sec.max(0) as u64) * 1_000_000 + t.tv_usec.max(0) as u64
}

impl Usage {
    /// This process's usage so far (all its threads).
    pub(crate) fn of_self() -> Result<Usage> {
        Self::of(libc::RUSAGE_SELF, "RUSAGE_SELF")
    }

    /// The calling thread's usage so far.
    pub(crate) fn of_thread() -> Result<Usage> {
        Self::of(libc::RUSAGE_THREAD, "RUSAGE_THREAD")
    }

    fn of(who: libc::c_int, name: &str) -> Result<Usage> {
        // SAFETY: all-zero is a valid rusage (plain integers and timevals).
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a live, writable rusage; `who` is RUSAGE_SELF or RUSAGE_THREAD,
        // which take no other argument.
        let r = unsafe { libc::getrusage(who, &mut ru) };
        crate::transports::check(r.into(), || format!("getrusage({name})"))?;
        Ok(Usage {
            user_us: micros(ru.ru_utime),
            sys_us: micros(ru.ru_stime),
            voluntary: ru.ru_nvcsw.max(0) as u64,
            involuntary: ru.ru_nivcsw.max(0) as u64,
        })
    }

    /// What was used since `earlier`.
    pub(crate) fn since(self, earlier: Usage) -> Usage {
        Usage {
            user_us: self.user_us.saturating_sub(earlier.user_us),
            sys_us: self.sys_us.saturating_sub(earlier.sys_us),
            voluntary: self.voluntary.saturating_sub(earlier.voluntary),
            involuntary: self.involuntary.saturating_sub(earlier.involuntary),
        }
    }

    /// The sum of two usages (of two workers).
    pub(crate) fn plus(self, other: Usage) -> Usage {
        Usage {
            user_us: self.user_us + other.user_us,
            sys_us: self.sys_us + other.sys_us,
            voluntary: self.voluntary + other.voluntary,
            involuntary: self.involuntary + other.involuntary,
        }
    }

    pub(crate) fn switches(&self) -> u64 {
        self.voluntary + self.involuntary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_only_grows_and_differences_add_up() {
        let a = Usage::of_self().unwrap();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = x.wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(x);
        let b = Usage::of_self().unwrap();
        let d = b.since(a);
        assert_eq!(a.plus(d), b);
        assert_eq!(a.since(b), Usage::default(), "saturates instead of wrapping");
        assert_eq!(d.switches(), d.voluntary + d.involuntary);
    }
}
