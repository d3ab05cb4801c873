#if canImport(Glibc)
import Glibc
#endif
import StrobeBase
import SystemPackage

/// Files by descriptor number, on swift-system (which retries a call a signal interrupted),
/// failing with the capture's errors.
enum FileIO {
    static func openForReading(_ path: String) throws(BtsnoopError) -> Int32 {
        do {
            return try FileDescriptor.open(path, .readOnly, options: [.closeOnExec]).rawValue
        } catch {
            throw .cannotOpen(path: path, errno: errnoValue(of: error))
        }
    }

    static func create(_ path: String) throws(BtsnoopError) -> Int32 {
        do {
            return try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                           permissions: [.ownerReadWrite, .groupRead, .otherRead]).rawValue
        } catch {
            throw .cannotOpen(path: path, errno: errnoValue(of: error))
        }
    }

    /// Reads at most `buffer.count` bytes; 0 at end of file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(BtsnoopError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        do {
            return try FileDescriptor(rawValue: fd).read(into: buffer)
        } catch {
            throw .readFailed(errno: errnoValue(of: error))
        }
    }

    /// Writes all of `bytes`, completing partial writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(BtsnoopError) {
        do {
            _ = try FileDescriptor(rawValue: fd).writeAll(bytes)
        } catch {
            throw .writeFailed(errno: errnoValue(of: error))
        }
    }
}
/// `Array.withUnsafeBytes` keeping the typed error (the standard one rethrows `any Error`).
func withBytes<R>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(BtsnoopError) -> R
) throws(BtsnoopError) -> R {
    try array.withUnsafeBytes { view in Result { () throws(BtsnoopError) in try body(view) } }.get()
}
