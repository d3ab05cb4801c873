import Foundation

/// One scenario's figures: printed as text, or as one JSON object per scenario with `--json`.
struct BenchReport: Encodable {
    var scenario: String
    var figures: [String: Double?]
    var units: [String: String]
    var notes: [String] = []

    func text() -> String {
        var lines = ["\(scenario):"]
        for key in figures.keys.sorted() {
            let value = figures[key].flatMap { $0 }.map { Self.format($0) } ?? "n/a"
            lines.append("  \(key.padding(toLength: 34, withPad: " ", startingAt: 0)) \(value) \(units[key] ?? "")")
        }
        for note in notes { lines.append("  note: \(note)") }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3f", value)
    }
}

/// Where the figures came from.
struct MachineInfo: Encodable {
    var cpu: String
    var cores: Int
    var swift: String
    var configuration: String
    var allocationCounting: Bool

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        #if compiler(>=6.3)
        let swift = "6.3+"
        #else
        let swift = "6.x"
        #endif
        return MachineInfo(cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount, swift: swift,
                           configuration: configuration, allocationCounting: Allocations.available)
    }
}

/// Monotonic nanoseconds, for timing loops.
@inline(__always) func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// User plus system CPU time of this process, in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func ns(_ t: timeval) -> UInt64 { UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_usec) * 1000 }
    return ns(usage.ru_utime) + ns(usage.ru_stime)
}
