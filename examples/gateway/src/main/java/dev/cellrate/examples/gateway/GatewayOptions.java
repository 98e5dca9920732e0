package dev.cellrate.examples.gateway;

import dev.cellrate.netty.HttpRateLimitHandler;
import io.netty.util.NetUtil;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's command line (picocli): typed options with defaults, {@code --help}, and one clear line
 * naming the option for anything wrong. {@link #parse} never starts anything, so a bad command line leaves
 * nothing running.
 */
@Command(name = "gateway", sortOptions = false,
    description = {
        "A rate-limiting reverse proxy. Each client (its TCP source address; IPv6 grouped by /64) gets its " +
            "own GCRA budget of --rate requests per second with bursts up to --burst. The backend runs inside " +
            "this process and has no network address, so only the gateway reaches it.",
        "",
        "HTTP/1.1 (keep-alive, pipelining) and HTTP/2 over cleartext (h2c, by prior knowledge or Upgrade). " +
            "Each HTTP/2 stream is one request and one decision.",
        ""},
    footer = {
        "",
        "Refused requests get 429 with Retry-After, RateLimit-Policy and RateLimit (plus X-RateLimit-* with " +
            "--legacy-headers). Admitted responses carry RateLimit-Policy and RateLimit too.",
        "",
        "Malformed requests get 400 (431 for headers over 8 KB, 414 for a request line over 4 KB, 505 for " +
            "another HTTP version) and the connection is closed.",
        "",
        "HTTP/1.1 pipelining: at most " + HttpRateLimitHandler.MAX_OUTSTANDING + " requests of one " +
            "connection are owed a response at a time.",
        "",
        "Example: gateway --bind 127.0.0.1 --port 8080 --rate 10 --burst 10"})
final class GatewayOptions
{
    static final long MAX_RATE_PER_SECOND = 1_000_000_000L;
    static final long MAX_BURST = 1_000_000_000L;
    static final long MAX_TIMEOUT_SECONDS = 86_400;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
    boolean help;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "IP address to listen on (an IPv4 or IPv6 " +
        "literal; 0.0.0.0 or :: for all). Default: ${DEFAULT-VALUE}.")
    String bind = "127.0.0.1";

    @Option(names = "--port", paramLabel = "PORT", description = "TCP port to listen on, in [0, 65535] " +
        "(0: any free port, printed at start). Default: ${DEFAULT-VALUE}.")
    int port = 8080;

    @Option(names = "--rate", paramLabel = "PER_SECOND", description = "Requests per second per client, in " +
        "[1, " + MAX_RATE_PER_SECOND + "]. Default: ${DEFAULT-VALUE}.")
    long rate = 10;

    @Option(names = "--burst", paramLabel = "REQUESTS", description = "Requests a client may send at once " +
        "after a pause, in [1, " + MAX_BURST + "]. Default: ${DEFAULT-VALUE}.")
    long burst = 10;

    @Option(names = "--legacy-headers", description = "Also write X-RateLimit-Limit, X-RateLimit-Remaining and " +
        "X-RateLimit-Reset (seconds) beside the IETF RateLimit fields.")
    boolean legacyHeaders;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS", description = "Close a connection that sends and " +
        "receives nothing for this long, in [1, " + MAX_TIMEOUT_SECONDS + "]. Default: ${DEFAULT-VALUE}.")
    long idleTimeoutSeconds = 60;

    @Option(names = "--header-timeout", paramLabel = "SECONDS", description = "Close an HTTP/1.1 connection " +
        "whose request head (request line and headers) is not complete this long after its first byte " +
        "(slow-header attacks), in [1, " + MAX_TIMEOUT_SECONDS + "]. Default: ${DEFAULT-VALUE}.")
    long headerTimeoutSeconds = 10;

    /** The address parsed from {@link #bind} by {@link #parse}. */
    InetAddress bindAddress;

    /** Thrown for a command line that cannot run; the message is the one line to print. */
    static final class BadCommandLine extends Exception
    {
        private static final long serialVersionUID = 1L;

        BadCommandLine(final String message)
        {
            super(message, null, false, false);
        }
    }

    /**
     * @param commandLine a picocli command line over a fresh instance.
     * @param args        the arguments.
     * @return the options, or null if help was asked for (the caller prints {@link #usage}).
     * @throws BadCommandLine with one line naming the option.
     */
    static GatewayOptions parse(final CommandLine commandLine, final String... args) throws BadCommandLine
    {
        try
        {
            commandLine.parseArgs(args);
        }
        catch (final CommandLine.ParameterException e)
        {
            throw new BadCommandLine(e.getMessage());
        }
        final GatewayOptions o = commandLine.getCommand();
        if (commandLine.isUsageHelpRequested())
        {
            return null;
        }
        o.validate();
        return o;
    }

    static CommandLine commandLine()
    {
        return new CommandLine(new GatewayOptions());
    }

    /** @return the usage text. */
    static String usage(final CommandLine commandLine)
    {
        return commandLine.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private void validate() throws BadCommandLine
    {
        inRange("--port", port, 0, 65_535);
        inRange("--rate", rate, 1, MAX_RATE_PER_SECOND);
        inRange("--burst", burst, 1, MAX_BURST);
        inRange("--idle-timeout", idleTimeoutSeconds, 1, MAX_TIMEOUT_SECONDS);
        inRange("--header-timeout", headerTimeoutSeconds, 1, MAX_TIMEOUT_SECONDS);
        final byte[] ip = NetUtil.createByteArrayFromIpAddressString(bind);
        if (null == ip)
        {
            throw new BadCommandLine("--bind must be an IPv4 or IPv6 address literal, got '" + bind + "'");
        }
        try
        {
            bindAddress = InetAddress.getByAddress(ip);
        }
        catch (final UnknownHostException e)
        {
            throw new BadCommandLine("--bind must be an IPv4 or IPv6 address literal, got '" + bind + "'");
        }
    }

    private static void inRange(final String option, final long value, final long min, final long max)
        throws BadCommandLine
    {
        if (value < min || value > max)
        {
            throw new BadCommandLine(option + " must be in [" + min + ", " + max + "], got " + value);
        }
    }

    long idleTimeoutNs()
    {
        return TimeUnit.SECONDS.toNanos(idleTimeoutSeconds);
    }

    long headerTimeoutNs()
    {
        return TimeUnit.SECONDS.toNanos(headerTimeoutSeconds);
    }
}
