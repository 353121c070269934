//! How much host memory a new allocation may still take. Operating systems grant large
//! allocations lazily and, once the memory is touched and runs out, kill the process (Linux's
//! OOM killer) instead of failing the allocation; so a large tensor is refused beforehand
//! when it would not fit, and the user gets an error instead of a dead process.

/// Below this many bytes an allocation is not checked: reading the OS's figures costs more
/// than such an allocation, and a process that runs out this way has bigger problems.
pub const CHECKED_FROM: usize = 64 << 20;

/// Bytes the process may still allocate: the smallest of the system's available memory, what
/// the process's cgroup (a container's memory limit) leaves and what its address-space limit
/// (`ulimit -v`) leaves; `None` where the OS does not tell. A margin of one eighth is kept
/// back for everything else the process needs.
pub fn available() -> Option<usize> {
    let avail = [cgroup_left(), address_space_left()].into_iter().flatten().fold(mem_available()?, usize::min);
    Some(avail - avail / 8)
}

/// Refuses host work that needs `bytes` (`what` names it) when they are not available now.
pub fn check(bytes: usize, what: &str) -> crate::Result<()> {
    if bytes >= CHECKED_FROM {
        if let Some(available) = available().filter(|&a| bytes > a) {
            crate::bail!("Out of memory: {what} needs {bytes} bytes, but only {available} bytes are available");
        }
    }
    Ok(())
}

/// The soft address-space limit (`Max address space` of /proc/self/limits) less the
/// process's virtual size (`VmSize` of /proc/self/status), where there is a limit: past it an
/// allocation fails, which aborts a Rust program.
fn address_space_left() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft = limits.lines().find_map(|l| l.strip_prefix("Max address space"))?.split_whitespace().next()?;
    let limit: usize = soft.parse().ok()?; // "unlimited" does not parse: no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: usize =
        status.lines().find_map(|l| l.strip_prefix("VmSize:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(limit.saturating_sub(kib.checked_mul(1024)?))
}

/// `MemAvailable` of /proc/meminfo (Linux), in bytes.
fn mem_available() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// `memory.max - memory.current` of this process's cgroup v2, where it has a limit.
fn cgroup_left() -> Option<usize> {
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
    let max: usize = read("memory.max")?.trim().parse().ok()?;
    let current: usize = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_memory_is_plausible_where_the_os_tells() {
        if let Some(a) = super::available() {
            assert!(a > 0);
        }
    }
}
