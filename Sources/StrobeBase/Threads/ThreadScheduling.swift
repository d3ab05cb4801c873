#if canImport(Glibc)
import Glibc
#endif

/// How the kernel is asked to run Strobe's own threads: a host's loop and a transport's reader,
/// the two every packet and deadline passes through.
public enum ThreadScheduling: Sendable, Hashable {
    /// A nice value of -10, where the process may ask for one (`CAP_SYS_NICE`, or an
    /// `RLIMIT_NICE` of 30 or more), so that the process's other threads and other processes
    /// of its group do not hold a packet back; elsewhere, and in a process started in another
    /// class (`chrt`) or at a lower nice value, as the process was started. Both threads sleep
    /// whenever they have nothing to do; threads they start begin at nice 0. (Not the real-time
    /// class: its wake-ups cost a virtual machine's kernel about ten times the CPU per
    /// notification, by `strobe-bench e2e`.)
    case raisedWherePermitted
    /// As any other thread of the process.
    case normal

    /// Applies this to the calling thread (on Linux each thread has its own nice value) and
    /// says whether it was raised.
    @discardableResult
    package func applyToCurrentThread() -> Bool {
        guard self == .raisedWherePermitted,
              sched_getscheduler(0) & ~Self.resetOnFork == SCHED_OTHER,
              getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) > Self.raisedNice,
              // `who` 0 with PRIO_PROCESS is the calling thread on Linux.
              setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.raisedNice) == 0 else { return false }
        // Threads started from this one (a pool thread Dispatch starts when the loop resumes an
        // app's task, a bond store's) begin at nice 0, not at this thread's raised value. Asking
        // for it needs no privilege, and SCHED_OTHER is valid, so it cannot fail.
        var parameters = sched_param()
        _ = sched_setscheduler(0, SCHED_OTHER | Self.resetOnFork, &parameters)
        return true
    }

    /// `SCHED_RESET_ON_FORK` (linux/sched.h), which Glibc's module leaves out.
    package static let resetOnFork: Int32 = 0x4000_0000

    /// The nice value a raised thread runs at.
    package static let raisedNice: Int32 = -10
}
