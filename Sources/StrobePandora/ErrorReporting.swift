import GRPCCore
import Logging

/// Every call that fails is logged with its method and error (at debug level when the runner
/// had cancelled it), and an error that is not an `RPCError` reaches the runner as UNKNOWN with
/// its description (gRPC would send it empty).
struct ErrorReporting: ServerInterceptor {
    let logger: Logger

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>, context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let method = context.descriptor.fullyQualifiedMethod
        var response: StreamingServerResponse<Output>
        do {
            response = try await next(request, context)
        } catch {
            throw report(error, in: method)
        }
        if case .success(var contents) = response.accepted {
            let producer = contents.producer
            contents.producer = { [logger] writer in
                do {
                    return try await producer(writer)
                } catch {
                    throw ErrorReporting(logger: logger).report(error, in: method)
                }
            }
            response.accepted = .success(contents)
        }
        return response
    }

    private func report(_ error: any Error, in method: String) -> RPCError {
        let rpcError: RPCError
        switch error {
        case let error as RPCError: rpcError = error
        // The stack's own errors reach the test as UNKNOWN with what they say.
        default: rpcError = RPCError(code: .unknown, message: "\(error)")
        }
        logger.log(level: Task.isCancelled ? .debug : .warning, "call failed", metadata: [
            "method": "\(method)", "code": "\(rpcError.code)", "error": "\(rpcError.message)"])
        return rpcError
    }
}
