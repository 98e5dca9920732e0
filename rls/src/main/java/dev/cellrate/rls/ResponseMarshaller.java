package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;

import java.io.InputStream;

/**
 * Sends a response given either as a {@link WireAnswer} (its bytes, as they are) or as a {@link RateLimitResponse}
 * (through protobuf's marshaller). Parsing, which a server never does, reads a {@link RateLimitResponse}.
 * <p>
 * Threading: any thread; stateless.
 */
final class ResponseMarshaller implements MethodDescriptor.Marshaller<Object>
{
    private static final MethodDescriptor.Marshaller<RateLimitResponse> PROTO =
        ProtoUtils.marshaller(RateLimitResponse.getDefaultInstance());

    public InputStream stream(final Object value)
    {
        return value instanceof WireAnswer ? ((WireAnswer)value).stream() : PROTO.stream((RateLimitResponse)value);
    }

    public Object parse(final InputStream stream)
    {
        return PROTO.parse(stream);
    }
}
