import Foundation
import Synchronization
import MallocInterposerSwift

/// Heap allocation counts, from the malloc interposer. On Linux it counts only when its library
/// is preloaded (`LD_PRELOAD`), so `strobe-bench` re-executes itself that way at start.
enum Allocations {
    static let libraryName = "libMallocInterposerSwift.so"

    /// True when the interposer is in the process and sees an allocation made on purpose, so
    /// that a count of zero elsewhere means zero.
    static let available: Bool = {
        guard ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains(libraryName) ?? false else { return false }
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        let probe = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        MallocInterposerSwift.unhook()
        probe.deallocate()
        return MallocInterposerSwift.getStatistics().mallocCount >= 1
    }()

    /// Re-executes this program with the interposer preloaded, when it sits next to the
    /// executable (as SwiftPM builds it) and is not loaded yet. Returns if it cannot.
    static func preloadInterposer() {
        guard !available else { return }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let library = executable.deletingLastPathComponent().appendingPathComponent(libraryName).path
        guard FileManager.default.fileExists(atPath: library) else { return }
        setenv("LD_PRELOAD", library, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) }
        argv.append(nil)
        execv(executable.path, &argv)
    }

    /// Allocations made while `body` runs (nil when the interposer is not loaded).
    static func count(_ body: () throws -> Void) rethrows -> Int? {
        guard available else {
            try body()
            return nil
        }
        begin()
        try body()
        return end()
    }

    /// Heap bytes allocated less those freed, process-wide, while `body` runs (nil when the
    /// interposer is not loaded): what `body` left allocated.
    static func retainedBytes<T>(_ body: () async throws -> T) async rethrows -> (T, Int?) {
        guard available else { return (try await body(), nil) }
        begin()
        let value = try await body()
        MallocInterposerSwift.unhook()
        let statistics = MallocInterposerSwift.getStatistics()
        return (value, statistics.mallocBytesCount - statistics.freeBytesCount)
    }

    private static func begin() {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
    }

    /// The allocations since `begin`, and counting stopped.
    private static func end() -> Int {
        MallocInterposerSwift.unhook()
        return MallocInterposerSwift.getStatistics().mallocCount
    }

    /// Starts counting, process-wide and, apart, on the calling thread alone (the hook runs on
    /// the allocating thread and compares it with the one that began).
    static func beginWithThread() {
        countingThread.store(UInt(pthread_self()), ordering: .relaxed)
        threadAllocations.store(0, ordering: .relaxed)
        MallocInterposerSwift.setAllocationHook { _ in
            if UInt(pthread_self()) == countingThread.load(ordering: .relaxed) { threadAllocations.add(1, ordering: .relaxed) }
        }
        begin()
    }

    /// Stops counting: allocations since `beginWithThread`, process-wide and on its thread.
    static func endWithThread() -> (process: Int, thread: Int, sameThread: Bool) {
        let process = end()
        MallocInterposerSwift.setAllocationHook(nil)
        let sameThread = UInt(pthread_self()) == countingThread.load(ordering: .relaxed)
        return (process, threadAllocations.load(ordering: .relaxed), sameThread)
    }
}

/// The thread `Allocations.beginWithThread` counts, and its count (globals the C hook can reach).
private let countingThread = Atomic<UInt>(0)
private let threadAllocations = Atomic<Int>(0)
