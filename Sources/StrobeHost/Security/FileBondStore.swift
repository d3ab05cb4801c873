import Foundation
import StrobeHCI
import StrobeSecurity
import SystemPackage

/// Bonds in a JSON file, by default `$XDG_STATE_HOME/strobe/bonds.json` (or
/// `~/.local/state/strobe/bonds.json`); a relative path is taken from the working directory.
///
/// Safe across processes: every change is a read-modify-write under an advisory lock
/// (`flock` on `bonds.json.lock` beside the file), the file read again under the lock. Each
/// change goes to a temporary file created exclusively, 0600, under an unpredictable name in
/// the store's directory, then renamed over the old file. Nothing is written outside that
/// directory: a symbolic link at the store's path, its lock or a temporary name is refused,
/// never followed, and a directory that another user owns or can write to is refused. A file
/// that cannot be read or parsed is an error naming it, never a silent reset. The directory is
/// made 0700 when missing.
public final class FileBondStore: BondStore {
    /// The store's absolute path.
    public let path: String
    private let directory: String
    private let lockPath: String
    private let temporaryName: @Sendable () -> String
    /// How long a change waits for another process's lock (by default 10 s).
    let lockTimeout: Duration
    /// A store is a few kilobytes; a larger file is not read.
    static let maximumSize = 16 << 20

    struct Contents: Codable {
        var version = 1
        var localIRK: IdentityResolvingKey?
        var bonds: [Bond] = []
    }

    /// A store at `path`, by default `defaultPath`; a relative path is taken from the working
    /// directory. Nothing is read or created before the first use.
    public convenience init(path: String = FileBondStore.defaultPath) {
        self.init(path: path, temporaryName: Self.randomTemporaryName)
    }

    /// An unpredictable name for a temporary file in the store's directory.
    @Sendable package static func randomTemporaryName() -> String {
        ".bonds-" + SMPRandom.bytes(12).map { String(format: "%02x", $0) }.joined()
    }

    /// `temporaryName` names each temporary file in the store's directory (tests plant links
    /// at the names it gives).
    package init(path: String, lockTimeout: Duration = .seconds(10), temporaryName: @escaping @Sendable () -> String) {
        self.lockTimeout = lockTimeout
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        self.path = absolute
        let slash = absolute.lastIndex(of: "/")!
        directory = slash == absolute.startIndex ? "/" : String(absolute[..<slash])
        lockPath = absolute + ".lock"
        self.temporaryName = temporaryName
    }

    /// `$XDG_STATE_HOME/strobe/bonds.json`, or `~/.local/state/strobe/bonds.json` when
    /// `XDG_STATE_HOME` is unset or empty.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.local/state"
        return base + "/strobe/bonds.json"
    }

    /// The bonds in the file; none when there is no file yet. Throws `.unreadable`, `.corrupt` or `.notAFile`.
    public func bonds() throws(BondStoreError) -> [Bond] {
        try read().bonds
    }

    /// Adds the bond under the lock, replacing one for the same peer identity address. Throws when the
    /// file cannot be read or written, or `.locked` when another process holds the lock for 10 s.
    public func save(_ bond: Bond) throws(BondStoreError) {
        try change { contents in
            contents.bonds.removeAll { $0.peer.address == bond.peer.address }
            contents.bonds.append(bond)
        }
    }

    /// Adds the bond only if the one stored for the same peer is still `expected` (nil: none), both
    /// under one lock; returns whether it did. Throws as `save(_:)` does.
    public func save(_ bond: Bond, replacing expected: Bond?) throws(BondStoreError) -> Bool {
        var saved = false
        try change { contents in
            guard contents.bonds.first(where: { $0.peer.address == bond.peer.address }) == expected else { return }
            contents.bonds.removeAll { $0.peer.address == bond.peer.address }
            contents.bonds.append(bond)
            saved = true
        }
        return saved
    }

    /// Removes the bond of the peer whose identity address is `peer`; returns whether there was one.
    /// Throws as `save(_:)` does.
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

    /// Removes every bond; this host's IRK stays. Throws as `save(_:)` does.
    public func removeAll() throws(BondStoreError) {
        try change { $0.bonds.removeAll() }
    }

    /// This host's IRK, kept in the file: the first call makes a random one and stores it. Throws as
    /// `bonds()` does, and as `save(_:)` does when it stores a new one.
    public func localIRK() throws(BondStoreError) -> IdentityResolvingKey {
        if let irk = try read().localIRK { return irk }
        var irk = IdentityResolvingKey.random()
        try change { contents in
            if let existing = contents.localIRK { irk = existing } else { contents.localIRK = irk }
        }
        return irk
    }

    /// Reads the store and makes (and removes) a temporary file beside it: what storing a bond
    /// will need. Never waits for another process's lock (it may run on the thread that reads
    /// the controller).
    public func verify() throws(BondStoreError) {
        try makeDirectory()
        _ = try read()
        let (fd, temporary) = try createTemporary()
        close(fd)
        unlink(temporary)
    }

    // MARK: Locking

    /// A read-modify-write under the lock, the file read again under it.
    private func change(_ body: (inout Contents) -> Void) throws(BondStoreError) {
        try locked { () throws(BondStoreError) in
            var contents = try read()
            body(&contents)
            try write(contents)
        }
    }

    /// Runs `body` holding the exclusive advisory lock on `bonds.json.lock`, waiting at most
    /// `lockTimeout` for another process to let it go.
    private func locked(_ body: () throws(BondStoreError) -> Void) throws(BondStoreError) {
        try makeDirectory()
        let fd = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            switch errno {
            case ELOOP: throw .notAFile(path: lockPath, kind: "a symbolic link")
            case EISDIR: throw .notAFile(path: lockPath, kind: "a directory")
            default: throw .unwritable(path: path, reason: "its lock file \(lockPath) cannot be opened: \(Self.errorText())")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unwritable(path: path, reason: "its lock file: \(Self.errorText())") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: lockPath, kind: Self.kind(info.st_mode)) }
        guard info.st_uid == geteuid() else { throw .unwritable(path: path, reason: "its lock file \(lockPath) belongs to another user") }
        let start = ContinuousClock.now
        // Polled, so that the wait has a deadline; the pause doubles up to 32 ms, so that many
        // waiting processes do not take the CPU from the one holding the lock.
        var pause: UInt32 = 500
        while true {
            do throws(Errno) {
                _ = try retryingOnInterrupt { flock(fd, LOCK_EX | LOCK_NB) }
                break
            } catch {
                guard error == .wouldBlock else { throw .unwritable(path: path, reason: "its lock file cannot be locked: \(error)") }
            }
            let waited = ContinuousClock.now - start
            guard waited < lockTimeout else { throw .locked(path: path, waited: waited) }
            usleep(pause)
            pause = min(pause * 2, 32_000)
        }
        defer { flock(fd, LOCK_UN) }
        try body()
    }

    // MARK: File

    /// The contents; a missing file is an empty store.
    private func read() throws(BondStoreError) -> Contents {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return Contents()
            case ELOOP: throw .notAFile(path: path, kind: "a symbolic link")
            default: throw .unreadable(path: path, reason: Self.errorText())
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: Self.errorText()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: path, kind: Self.kind(info.st_mode)) }
        guard info.st_uid == geteuid() else { throw .unreadable(path: path, reason: "it belongs to another user") }
        guard info.st_size <= Self.maximumSize else { throw .corrupt(path: path, reason: "it is larger than \(Self.maximumSize >> 20) MiB") }
        var data = Data(count: Int(info.st_size))
        var offset = 0
        while offset < data.count {
            let n: Int
            do {
                n = try data.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: $0[offset...])) }
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
            if n == 0 { break }
            offset += n
        }
        return try decode(data.prefix(offset))
    }

    private func decode(_ data: Data) throws(BondStoreError) -> Contents {
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

    /// Under the lock: the contents to a new temporary file, flushed, then renamed over the
    /// store. `read` has already refused a store path that is not a regular file.
    private func write(_ contents: Contents) throws(BondStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(contents) else { throw .unwritable(path: path, reason: "its contents could not be encoded") }
        let (fd, temporary) = try createTemporary()
        // Written whole (swift-system completes partial writes and retries interrupted ones) and
        // flushed, else the temporary file goes.
        var failure: String?
        do {
            _ = try data.withUnsafeBytes { try FileDescriptor(rawValue: fd).writeAll($0) }
            if fsync(fd) != 0 { failure = Self.errorText() }
        } catch {
            failure = "\(error)"
        }
        close(fd)
        if let failure {
            unlink(temporary)
            throw .unwritable(path: path, reason: failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = Self.errorText()
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
        // The rename itself reaches the disk with the directory.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// A new file in the store's directory, 0600, created exclusively (never an existing file,
    /// nor through a link planted at the name).
    private func createTemporary() throws(BondStoreError) -> (Int32, String) {
        for _ in 0..<16 {
            let temporary = directory + "/" + temporaryName()
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, temporary) }
            guard errno == EEXIST else { throw .unwritable(path: path, reason: "no file can be made in \(directory): \(Self.errorText())") }
        }
        throw .unwritable(path: path, reason: "every temporary name tried in \(directory) was taken")
    }

    /// The store's directory and any missing parents, each new one 0700. The directory must be
    /// this user's and writable by no one else: another user who can write there could plant a
    /// store with keys of their choosing, or hold its lock.
    private func makeDirectory() throws(BondStoreError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            var partial = ""
            for component in directory.split(separator: "/") {
                partial += "/" + component
                if mkdir(partial, 0o700) != 0, errno != EEXIST {
                    throw .unwritable(path: path, reason: "the directory \(partial) cannot be made: \(Self.errorText())")
                }
            }
            guard stat(directory, &info) == 0 else { throw .unwritable(path: path, reason: "\(directory): \(Self.errorText())") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .unwritable(path: path, reason: "\(directory) is not a directory") }
        guard info.st_uid == geteuid() else {
            throw .unwritable(path: path, reason: "its directory \(directory) belongs to another user")
        }
        // A shared directory with the sticky bit (/tmp) is allowed: others cannot replace or
        // remove this user's files there, and files they planted are refused by their owner.
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw .unwritable(path: path, reason: "its directory \(directory) can be written by other users")
        }
    }

    // MARK: Words

    private static func errorText() -> String { String(cString: strerror(errno)) }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    private static func codingPath(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the top" : context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// Where the data went wrong; the debug description says what without quoting values.
    private static func `where`(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "not JSON" : "\(context.debugDescription) at \(codingPath(context))"
    }
}
