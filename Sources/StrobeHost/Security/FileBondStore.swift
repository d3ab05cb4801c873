import Foundation
import StrobeHCI
import StrobeSecurity
import Synchronization

/// Bonds in a JSON file, by default `$XDG_STATE_HOME/strobe/bonds.json` (or
/// `~/.local/state/strobe/bonds.json`): the directory 0700, the file 0600, each change written
/// to a temporary file and renamed over the old one. A file that cannot be read or parsed is an
/// error naming it, never a silent reset.
public final class FileBondStore: BondStore {
    public let path: String
    /// One change at a time within the process.
    private let lock = Mutex(())

    struct Contents: Codable {
        var version = 1
        var localIRK: IdentityResolvingKey?
        var bonds: [Bond] = []
    }

    public init(path: String = FileBondStore.defaultPath) { self.path = path }

    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.local/state"
        return base + "/strobe/bonds.json"
    }

    public func bonds() throws(BondStoreError) -> [Bond] {
        try lock.withLock { _ throws(BondStoreError) in try read().bonds }
    }

    public func save(_ bond: Bond) throws(BondStoreError) {
        try change { contents in
            contents.bonds.removeAll { $0.peer.address == bond.peer.address }
            contents.bonds.append(bond)
        }
    }

    @discardableResult
    public func removeBond(for peer: BluetoothAddress) throws(BondStoreError) -> Bool {
        var removed = false
        try change { contents in
            let before = contents.bonds.count
            contents.bonds.removeAll { $0.peer.address == peer }
            removed = contents.bonds.count != before
        }
        return removed
    }

    public func removeAll() throws(BondStoreError) {
        try change { $0.bonds.removeAll() }
    }

    public func localIRK() throws(BondStoreError) -> IdentityResolvingKey {
        if let irk = try lock.withLock({ _ throws(BondStoreError) in try read().localIRK }) { return irk }
        var irk = IdentityResolvingKey.random()
        try change { contents in
            if let existing = contents.localIRK { irk = existing } else { contents.localIRK = irk }
        }
        return irk
    }

    // MARK: File

    private func change(_ body: (inout Contents) -> Void) throws(BondStoreError) {
        try lock.withLock { _ throws(BondStoreError) in
            var contents = try read()
            body(&contents)
            try write(contents)
        }
    }

    /// The contents; a missing file is an empty store.
    private func read() throws(BondStoreError) -> Contents {
        guard FileManager.default.fileExists(atPath: path) else { return Contents() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: Self.reason(error))
        }
        do {
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            guard contents.version == 1 else { throw BondStoreError.corrupt(path: path, reason: "version \(contents.version) is not 1") }
            return contents
        } catch let error as BondStoreError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw .corrupt(path: path, reason: Self.where(context))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .corrupt(path: path, reason: "\(key.stringValue) is missing at \(Self.codingPath(context))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .corrupt(path: path, reason: "wrong type at \(Self.codingPath(context))")
        } catch {
            throw .corrupt(path: path, reason: "not JSON")
        }
    }

    private func write(_ contents: Contents) throws(BondStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            data = try encoder.encode(contents)
        } catch {
            throw .unwritable(path: path, reason: Self.reason(error))
        }
        // Created 0600 before a byte is written, then renamed over the old file.
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        let written = data.withUnsafeBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; return -1 }
                offset += n
            }
            return offset
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, fchmodat(AT_FDCWD, temporary, 0o600, 0) == 0,
              rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }

    private static func codingPath(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the top" : context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// Where the data went wrong; the debug description says what without quoting values.
    private static func `where`(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "not JSON" : "\(context.debugDescription) at \(codingPath(context))"
    }
}
