package dev.cellrate.rls;

import com.google.protobuf.CodedInputStream;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;

import java.io.IOException;
import java.io.InputStream;

/**
 * Parses a {@code RateLimitRequest}, or hands over why it cannot be parsed (the {@link IOException}), so that the
 * service answers a request protobuf cannot parse (malformed UTF-8 in a string, a truncated field) with
 * {@code INVALID_ARGUMENT} naming the problem, where grpc-java's own marshaller would make it an {@code UNKNOWN}
 * "application error".
 * <p>
 * A message of known length up to {@link #PARSE_BUFFER_LENGTH} bytes (any request Envoy sends) is read into a
 * per-thread buffer and parsed from it, instead of through a fresh 4 KiB stream buffer per request; protobuf
 * copies every string it reads, so nothing parsed refers to the buffer.
 * <p>
 * Threading: any thread.
 */
final class RequestMarshaller implements MethodDescriptor.Marshaller<Object>
{
    /** Largest message parsed from the per-thread buffer; a longer one is parsed from its stream. */
    static final int PARSE_BUFFER_LENGTH = 8192;
    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[PARSE_BUFFER_LENGTH]);

    public InputStream stream(final Object value)
    {
        return ((RateLimitRequest)value).toByteString().newInput();
    }

    /**
     * @param stream the message.
     * @return the {@link RateLimitRequest}, or the {@link IOException} saying why it is not one.
     */
    public Object parse(final InputStream stream)
    {
        try
        {
            final int length = stream instanceof KnownLength ? stream.available() : -1;
            if (length >= 0 && length <= PARSE_BUFFER_LENGTH)
            {
                final byte[] buffer = BUFFER.get();
                if (stream.readNBytes(buffer, 0, length) == length)
                {
                    return RateLimitRequest.parseFrom(CodedInputStream.newInstance(buffer, 0, length));
                }
                throw new IOException("message shorter than its length " + length);
            }
            return RateLimitRequest.parseFrom(stream);
        }
        catch (final IOException ex)
        {
            return ex;
        }
    }
}
