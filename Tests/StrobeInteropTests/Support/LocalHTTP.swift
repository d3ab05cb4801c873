import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request to a fixture on loopback, with a 10 s deadline, on a connection of its own.
enum LocalHTTP {
    static func request(_ method: String, _ url: String, body: Data? = nil, headers: [(String, String)] = []) async throws -> (Data, Int) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        // No keep-alive: a fixture's server closes a connection idle for a few seconds (a test
        // under load can leave one that long), and a request that went out on it as it closed
        // failed with "I/O on closed channel".
        request.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return (Data(buffer.readableBytesView), Int(response.status.code))
    }
}
