import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the user sees when something is wrong: one line on stderr, exit status 1 for a runtime
/// failure and 2 for bad usage. Never a crash.
@Suite(.timeLimit(.minutes(5))) struct CommandErrorTests {
    /// Found independently of the code under test: does this kernel refuse HCI sockets?
    static let kernelLacksBluetooth: Bool = {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 1)  // BTPROTO_HCI
        if fd >= 0 {
            close(fd)
            return false
        }
        return errno == EAFNOSUPPORT
    }()

    // Kernels with Bluetooth are covered by the kernel suite (Scripts/kernel-test.sh).
    @Test(.enabled(if: kernelLacksBluetooth, "this kernel has AF_BLUETOOTH"))
    func kernelWithoutBluetoothNamesTheMissingSupportAndTheAlternatives() async throws {
        let result = try await StrobeCommand.run(["--transport", "hci:0", "scan"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("AF_BLUETOOTH"))
        for alternative in ["tcp:", "unix:", "serial:"] {
            #expect(result.stderr.contains(alternative), "the message offers \(alternative)")
        }
        #expect(result.stdout.isEmpty)
    }

    @Test func unreachableControllerIsAOneLineError() async throws {
        // Port 1 on loopback: nothing listens there.
        let result = try await StrobeCommand.run(["--transport", "tcp:127.0.0.1:1", "info"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("tcp:127.0.0.1:1"))
    }

    @Test(arguments: [
        ["--transport", "bogus:1", "scan"],
        ["--transport", "tcp:nohostport", "info"],
        ["scan", "--duration", "-1", "--transport", "tcp:127.0.0.1:1"],
        ["no-such-command"],
    ])
    func badUsageExitsTwo(_ arguments: [String]) async throws {
        let result = try await StrobeCommand.run(arguments)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    /// `--read-coalescing` is checked for its range and its transport before anything opens.
    @Test(arguments: [
        (["--read-coalescing", "10001", "--transport", "tcp:127.0.0.1:1", "info"], "0 to 10000 microseconds"),
        (["--read-coalescing", "250", "info"], "tcp, unix and serial transports, not sim"),
    ])
    func readCoalescingOutOfRangeOrOnTheWrongTransportIsBadUsage(_ arguments: [String], complaint: String) async throws {
        let result = try await StrobeCommand.run(arguments)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(complaint), "stderr: \(result.stderr)")
    }

    /// Accepted for tcp: the command goes on to connect, and fails there.
    @Test func readCoalescingIsAcceptedForTCP() async throws {
        let result = try await StrobeCommand.run(["--read-coalescing", "250", "--transport", "tcp:127.0.0.1:1", "info"])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("tcp:127.0.0.1:1"))
    }

    @Test func missingCaptureIsAOneLineError() async throws {
        let result = try await StrobeCommand.run(["capture", "info", "/nonexistent/capture.btsnoop"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("/nonexistent/capture.btsnoop"))
    }
}
