import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// Where bonds are kept. Every failure is a `BondStoreError` naming the store; none carries a
/// key. A store whose calls block (`FileBondStore`: its file, and for a change another
/// process's lock, up to 10 s) is called on a thread of its own, never on the reader's thread or
/// Swift's cooperative pool; an app should do likewise.
public protocol BondStore: Sendable {
    /// Whether a call may block on I/O or a lock; true unless the store says otherwise.
    var blocks: Bool { get }
    /// Every bond in the store. Throws when the store cannot be read or is corrupt.
    func bonds() throws(BondStoreError) -> [Bond]
    /// Adds the bond, replacing one for the same peer.
    func save(_ bond: Bond) throws(BondStoreError)
    /// Adds the bond only if the one stored for the same peer is still `expected` (`nil`: none),
    /// in one step; returns whether it did.
    func save(_ bond: Bond, replacing expected: Bond?) throws(BondStoreError) -> Bool
    /// Removes the peer's bond; returns whether there was one.
    @discardableResult func removeBond(for peer: BluetoothAddress) throws(BondStoreError) -> Bool
    /// Removes every bond; this host's IRK stays.
    func removeAll() throws(BondStoreError)
    /// This host's IRK, made and kept on first use, so peers keep recognising its private
    /// addresses.
    func localIRK() throws(BondStoreError) -> IdentityResolvingKey
    /// Checks, before pairing, that a bond could be read and stored now.
    func verify() throws(BondStoreError)
}

extension BondStore {
    /// True: a store that does not say otherwise is taken to block, and is called off the pool.
    public var blocks: Bool { true }

    /// The bond for a peer seen at `address`: by identity, or through its IRK.
    public func bond(for address: BluetoothAddress, type: LEAddressType) throws(BondStoreError) -> Bond? {
        try bonds().first { $0.matches(address, type: type) }
    }
}

/// Bonds for the life of the process.
public final class InMemoryBondStore: BondStore {
    private let state: Lock<(bonds: [Bond], irk: IdentityResolvingKey)>

    /// A store that holds `bonds`, with `localIRK` (a random one by default) as this host's IRK.
    public init(bonds: [Bond] = [], localIRK: IdentityResolvingKey = .random()) {
        state = Lock((bonds, localIRK))
    }

    /// Never: memory does not wait.
    public var blocks: Bool { false }

    /// The bonds held, the most recently saved last.
    public func bonds() -> [Bond] { state.withLock { $0.bonds } }

    /// Adds the bond, replacing one for the same peer identity address.
    public func save(_ bond: Bond) {
        state.withLock { s in
            s.bonds.removeAll { $0.peer.address == bond.peer.address }
            s.bonds.append(bond)
        }
    }

    /// Adds the bond only if the one held for the same peer is still `expected` (nil: none), in one
    /// step; returns whether it did.
    public func save(_ bond: Bond, replacing expected: Bond?) -> Bool {
        state.withLock { s in
            guard s.bonds.first(where: { $0.peer.address == bond.peer.address }) == expected else { return false }
            s.bonds.removeAll { $0.peer.address == bond.peer.address }
            s.bonds.append(bond)
            return true
        }
    }

    /// Removes the bond of the peer whose identity address is `peer`; returns whether there was one.
    @discardableResult
    public func removeBond(for peer: BluetoothAddress) -> Bool {
        state.withLock { s in
            let before = s.bonds.count
            s.bonds.removeAll { $0.peer.address == peer }
            return s.bonds.count != before
        }
    }

    /// Removes every bond; this host's IRK stays.
    public func removeAll() { state.withLock { $0.bonds.removeAll() } }

    /// The IRK given at creation.
    public func localIRK() -> IdentityResolvingKey { state.withLock { $0.irk } }

    /// Does nothing: memory is always there to store a bond.
    public func verify() {}
}

/// Why the bond store could not be used. Names the file and what failed, never a key.
public enum BondStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file at `path` cannot be opened or read, or belongs to another user; `reason` says why.
    case unreadable(path: String, reason: String)
    /// The file at `path` is not a bond store: not JSON, the wrong structure, a version other than 1,
    /// or larger than 16 MiB. It is left as it is, never reset.
    case corrupt(path: String, reason: String)
    /// The file at `path`, its lock file, or its directory cannot be made or written, or is not safe
    /// to write (another user's, or writable by other users); `reason` says which.
    case unwritable(path: String, reason: String)
    /// The store's path names something other than a regular file (`kind`: a symbolic link, a
    /// directory, a FIFO, ...). A link is refused, not followed: it could send keys elsewhere.
    case notAFile(path: String, kind: String)
    /// Another process held the store's lock past the deadline.
    case locked(path: String, waited: Duration)

    /// A message naming the file and what failed; it never contains a key.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "the bond store \(path) cannot be read: \(reason)"
        case .corrupt(let path, let reason): "the bond store \(path) is corrupt: \(reason); fix or remove it (it is not reset)"
        case .unwritable(let path, let reason): "the bond store \(path) cannot be written: \(reason)"
        case .notAFile(let path, let kind): "the bond store \(path) is \(kind), not a regular file; give the path of a file"
        case .locked(let path, let waited): "the bond store \(path) stayed locked by another process for \(waited)"
        }
    }
}
