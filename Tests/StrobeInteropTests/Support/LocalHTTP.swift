import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request to a fixture on loopback, with a 10 s deadline.
enum LocalHTTP {
    static func request(_ method: String, _ url: String, body: Data? = nil, headers: [(String, String)] = []) async throws -> (Data, Int) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
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
