import CFuzzerDriver
import Foundation

/// The fuzzing harness: `strobe-fuzz list`, `strobe-fuzz seed TARGET DIR CAPTURE...` (cuts a
/// corpus for TARGET out of captures), `strobe-fuzz check TARGET ...` (the corpus and fixed
/// mutations of it, without libFuzzer: `MutationRun`), `strobe-fuzz TARGET [libFuzzer options]
/// [CORPUS...]`. Built by `Scripts/fuzz.sh` with `-sanitize=fuzzer,address`; a plain build lists,
/// seeds and checks.
@main
enum StrobeFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2 else { usage() }
        switch arguments[1] {
        case "list":
            for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        case "seed":
            guard arguments.count >= 4, let target = FuzzTarget.named(arguments[2]) else { usage() }
            seed(target, into: arguments[3], from: Array(arguments[4...]))
        case "check":
            guard arguments.count >= 3, let target = FuzzTarget.named(arguments[2]) else { usage() }
            check(target, Array(arguments[3...]))
        default:
            guard let target = FuzzTarget.named(arguments[1]) else { usage() }
            selected = target
            arguments.remove(at: 1)
            exit(runDriver(arguments))
        }
    }

    /// The target the libFuzzer callback runs; set once, before the driver starts.
    nonisolated(unsafe) static var selected: FuzzTarget?

    private static func runDriver(_ arguments: [String]) -> Int32 {
        var argc = Int32(arguments.count)
        var cStrings = arguments.map { strdup($0) } + [nil]
        let status = cStrings.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var argv = buffer.baseAddress
            return strobe_fuzzer_run(&argc, &argv) { data, size in
                StrobeFuzz.selected?.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            }
        }
        if status == -1 {
            FileHandle.standardError.write(Data("strobe-fuzz: built without libFuzzer; build it with Scripts/fuzz.sh\n".utf8))
            return 2
        }
        return status
    }

    private static func seed(_ target: FuzzTarget, into directory: String, from captures: [String]) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written = 0
        for path in captures {
            guard let capture = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("strobe-fuzz: cannot read \(path)\n".utf8))
                exit(1)
            }
            let name = (path as NSString).lastPathComponent
            for (index, input) in target.seeds(Array(capture)).enumerated() {
                guard FileManager.default.createFile(atPath: "\(directory)/\(name)-\(index)", contents: Data(input)) else {
                    FileHandle.standardError.write(Data("strobe-fuzz: cannot write into \(directory)\n".utf8))
                    exit(1)
                }
                written += 1
            }
        }
        print("\(target.name): \(written) seeds in \(directory)")
    }

    /// `check TARGET [--mutations N] [--artifact PATH] INPUT...`: every input (a file, or a
    /// directory's files in name order), then N mutations of them (default 2000).
    private static func check(_ target: FuzzTarget, _ arguments: [String]) {
        var mutations = 2000
        var artifact = "strobe-fuzz-\(target.name)-input"
        var paths: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--mutations":
                guard let value = rest.popFirst().flatMap(Int.init), value >= 0 else { usage() }
                mutations = value
            case "--artifact":
                guard let value = rest.popFirst() else { usage() }
                artifact = value
            default:
                paths.append(argument)
            }
        }
        var corpus: [[UInt8]] = []
        for path in paths {
            // A directory's files in name order; a file itself.
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().map { "\(path)/\($0)" } ?? [path]
            for name in names {
                guard let data = FileManager.default.contents(atPath: name) else { continue }
                corpus.append(Array(data.prefix(MutationRun.maximumLength)))
            }
        }
        do {
            try MutationRun(target: target, corpus: corpus, mutations: mutations, artifact: artifact).run()
            print("\(target.name): \(corpus.count) inputs and \(mutations) mutations, no crash")
        } catch {
            FileHandle.standardError.write(Data("strobe-fuzz: cannot write \(artifact): \(error)\n".utf8))
            exit(1)
        }
    }

    private static func usage() -> Never {
        FileHandle.standardError.write(Data("""
            usage: strobe-fuzz list
                   strobe-fuzz seed TARGET DIR CAPTURE...
                   strobe-fuzz check TARGET [--mutations N] [--artifact PATH] INPUT...
                   strobe-fuzz TARGET [libFuzzer options] [CORPUS...]

            """.utf8))
        exit(2)
    }
}
