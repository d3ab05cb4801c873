/// The LIFX HTTP API's errors, typed by status. Messages are the API's own `{"error": ...}`
/// text with the token cut out, should a server echo it.
public enum LIFXHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400.
    case badRequest(String)
    /// 401: the token is missing, wrong or revoked.
    case unauthorized(String)
    /// 403: the token may not do this.
    case forbidden(String)
    /// 404: the selector matched nothing (or no such scene).
    case notFound(String)
    /// 422: the body was refused.
    case unprocessable(String)
    /// 429, still limited after waiting for the reset (or the reset was too far away).
    /// `resetAt` is the X-RateLimit-Reset header, epoch seconds.
    case rateLimited(resetAt: Int?, limit: Int?)
    /// 5xx or another status.
    case server(status: Int, message: String)
    /// An answer that is not the documented shape.
    case badResponse(String)
    /// No answer: the connection failed or the deadline passed.
    case transport(String)

    /// What went wrong with the status, as a sentence for a user; never the token.
    public var description: String {
        switch self {
        case .badRequest(let message): "the LIFX API refused the request (400): \(message)"
        case .unauthorized(let message): "the LIFX API refused the token (401): \(message)"
        case .forbidden(let message): "the token may not do this (403): \(message)"
        case .notFound(let message): "nothing matched (404): \(message)"
        case .unprocessable(let message): "the LIFX API refused the body (422): \(message)"
        case .rateLimited(let resetAt, let limit):
            "rate limited (429)" + (limit.map { ", \($0) requests per window" } ?? "") + (resetAt.map { ", resets at \($0) (epoch seconds)" } ?? "")
        case .server(let status, let message): "the LIFX API failed (\(status)): \(message)"
        case .badResponse(let reason): "the LIFX API answered in an unexpected shape: \(reason)"
        case .transport(let reason): "no answer from the LIFX API: \(reason)"
        }
    }
}
