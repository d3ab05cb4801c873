import CFuzzerDriver
import Foundation

/// The fuzzing harness: `strobe-fuzz list`, `strobe-fuzz seed TARGET DIR CAPTURE...` (cuts a
/// corpus for TARGET out of captures), `strobe-fuzz TARGET [libFuzzer options] [CORPUS...]`.
/// Built by `Scripts/fuzz.sh` with `-sanitize=fuzzer,address`; a plain build only lists and seeds.
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

    private static func usage() -> Never {
        FileHandle.standardError.write(Data("""
            usage: strobe-fuzz list
                   strobe-fuzz seed TARGET DIR CAPTURE...
                   strobe-fuzz TARGET [libFuzzer options] [CORPUS...]

            """.utf8))
        exit(2)
    }
}
