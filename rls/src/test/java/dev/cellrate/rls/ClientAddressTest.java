package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two real grpc-java clients, one connected from 127.0.0.2 and one from 127.0.0.1, against the service on
 * loopback: limits follow the descriptor's values (Envoy's {@code remote_address} action names the downstream
 * client), and the address of the connection to the service plays no part, as for Envoy, whose every request
 * comes over the same few connections.
 */
class ClientAddressTest
{
    private static final String CONFIG =
        "domain: edge\ndescriptors:\n" +
        "  - key: remote_address\n    rate_limit:\n      unit: hour\n      requests_per_unit: 3\n";

    /** A channel whose connections are bound to {@code source}, and the local address its last call used. */
    private static final class Client implements AutoCloseable
    {
        final ManagedChannel channel;
        final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;
        final AtomicReference<SocketAddress> localAddress = new AtomicReference<>();

        Client(final String source, final int port)
        {
            channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                .usePlaintext()
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker()
                {
                    @Override
                    public SocketAddress createSocketAddress(final SocketAddress remote, final io.grpc.Attributes attrs)
                    {
                        return new InetSocketAddress(source, 0);
                    }
                })
                .build();
            stub = RateLimitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .withInterceptors(new ClientInterceptor()
                {
                    @Override
                    public <Q, A> ClientCall<Q, A> interceptCall(
                        final MethodDescriptor<Q, A> method, final CallOptions options, final Channel next)
                    {
                        final ClientCall<Q, A> call = next.newCall(method, options);
                        return new ForwardingClientCall.SimpleForwardingClientCall<>(call)
                        {
                            @Override
                            public void start(final Listener<A> listener, final Metadata headers)
                            {
                                super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener)
                                {
                                    @Override
                                    public void onClose(final Status status, final Metadata trailers)
                                    {
                                        localAddress.set(call.getAttributes().get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR));
                                        super.onClose(status, trailers);
                                    }
                                }, headers);
                            }
                        };
                    }
                });
        }

        Code call(final String remoteAddress)
        {
            return stub.shouldRateLimit(Rls.request("edge", 0, d("remote_address", remoteAddress))).getOverallCode();
        }

        String source()
        {
            return ((InetSocketAddress)localAddress.get()).getAddress().getHostAddress();
        }

        public void close() throws InterruptedException
        {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void limitsFollowTheDescriptorsRemoteAddressNotTheConnections() throws Exception
    {
        try (Rls rls = Rls.start(RlsServer.Mode.GCRA, CONFIG);
             Client two = new Client("127.0.0.2", rls.server.grpcPort());
             Client one = new Client("127.0.0.1", rls.server.grpcPort()))
        {
            // each connection's own client: 3 per hour each, counted apart
            assertEquals(Code.OK, two.call("10.0.0.2"));
            assertEquals("127.0.0.2", two.source(), "the first client connects from 127.0.0.2");
            assertEquals(Code.OK, one.call("10.0.0.1"));
            assertEquals("127.0.0.1", one.source(), "the second client connects from 127.0.0.1");
            assertEquals(Code.OK, two.call("10.0.0.2"));
            assertEquals(Code.OK, two.call("10.0.0.2"));
            assertEquals(Code.OVER_LIMIT, two.call("10.0.0.2"), "10.0.0.2 has spent its 3");
            assertEquals(Code.OK, one.call("10.0.0.1"), "10.0.0.1 still has 2 left");

            // the connection's address plays no part: 10.0.0.2 is refused from the other connection too ...
            assertEquals(Code.OVER_LIMIT, one.call("10.0.0.2"));
            // ... and 10.0.0.1's budget is one budget, whichever connection asks
            assertEquals(Code.OK, two.call("10.0.0.1"));
            assertEquals(Code.OVER_LIMIT, one.call("10.0.0.1"), "3 of 10.0.0.1 over both connections");
            assertEquals(Code.OVER_LIMIT, two.call("10.0.0.1"));

            // a descriptor naming a connection's own address is just another value, with its own budget
            assertEquals(Code.OK, two.call("127.0.0.2"));
            assertEquals(Code.OK, one.call("127.0.0.2"));
            assertEquals(Code.OK, two.call("127.0.0.1"));
            assertEquals("127.0.0.2", two.source());
            assertEquals("127.0.0.1", one.source());
        }
    }
}
