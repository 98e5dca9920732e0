package dev.cellrate.rls;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A running service on loopback with its configuration directory, and a real grpc-java client to it.
 */
final class Rls implements AutoCloseable
{
    final Path directory;
    final RlsServer server;
    final ManagedChannel channel;
    final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;
    final AtomicLong clockNs;

    Rls(final RlsServer.Options options, final AtomicLong clockNs) throws Exception
    {
        this.directory = options.configDirectory;
        this.clockNs = clockNs;
        this.server = RlsServer.start(options);
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
        this.stub = RateLimitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.HOURS);
    }

    /**
     * A service with a fixed clock (advanced by the test) over a directory holding the given files.
     */
    static Rls start(final RlsServer.Mode mode, final String... yamls) throws Exception
    {
        return start(mode, RlsService.Headers.NONE, false, yamls);
    }

    static Rls start(final RlsServer.Mode mode, final RlsService.Headers headers, final boolean shadow,
        final String... yamls) throws Exception
    {
        final Path directory = Files.createTempDirectory("rls-config");
        for (int i = 0; i < yamls.length; i++)
        {
            Files.writeString(directory.resolve("config" + i + ".yaml"), yamls[i], StandardCharsets.UTF_8);
        }
        final AtomicLong clockNs = new AtomicLong(1_000_000_000_000L);
        final RlsServer.Options options = options(directory);
        options.mode = mode;
        options.headers = headers;
        options.globalShadowMode = shadow;
        options.clock = clockNs::get;
        options.epochClock = clockNs::get;
        return new Rls(options, clockNs);
    }

    static RlsServer.Options options(final Path directory)
    {
        final RlsServer.Options options = new RlsServer.Options();
        options.configDirectory = directory;
        options.bindHost = "127.0.0.1";
        options.grpcPort = 0;
        options.httpPort = 0;
        options.keysPerRule = 1024;
        options.pollMs = 50;
        return options;
    }

    void advanceMs(final long ms)
    {
        clockNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    RateLimitResponse call(final String domain, final RateLimitDescriptor... descriptors)
    {
        return stub.shouldRateLimit(request(domain, 0, descriptors));
    }

    static RateLimitRequest request(final String domain, final int hits, final RateLimitDescriptor... descriptors)
    {
        final RateLimitRequest.Builder b = RateLimitRequest.newBuilder().setDomain(domain).setHitsAddend(hits);
        for (final RateLimitDescriptor d : descriptors)
        {
            b.addDescriptors(d);
        }
        return b.build();
    }

    /** A descriptor from key, value, key, value, ... */
    static RateLimitDescriptor d(final String... keyValues)
    {
        final RateLimitDescriptor.Builder b = RateLimitDescriptor.newBuilder();
        for (int i = 0; i < keyValues.length; i += 2)
        {
            b.addEntries(RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
        }
        return b.build();
    }

    static RateLimitDescriptor withHits(final RateLimitDescriptor d, final long hits)
    {
        return d.toBuilder().setHitsAddend(UInt64Value.of(hits)).build();
    }

    /** How many of n calls of the descriptor are OK. */
    int admitted(final int n, final String domain, final RateLimitDescriptor d)
    {
        int ok = 0;
        for (int i = 0; i < n; i++)
        {
            if (RateLimitResponse.Code.OK == call(domain, d).getOverallCode())
            {
                ok++;
            }
        }
        return ok;
    }

    void write(final String name, final String yaml) throws IOException
    {
        final Path tmp = directory.resolve("." + name + ".tmp");
        Files.writeString(tmp, yaml, StandardCharsets.UTF_8);
        Files.move(tmp, directory.resolve(name), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    public void close() throws Exception
    {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }
}
