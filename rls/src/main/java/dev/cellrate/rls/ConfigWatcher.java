package dev.cellrate.rls;

import dev.cellrate.rls.config.ConfigException;
import dev.cellrate.rls.config.ConfigLoader;
import dev.cellrate.rls.config.RlsConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Reloads the configuration directory when its files change: a thread reads the names and bytes of the
 * directory's configuration files every {@code pollMs} and, when their digest differs from the last one
 * loaded or refused, loads them all. A directory that loads is applied to the service (rules with an
 * unchanged limit keep their state); one that does not keeps the last good configuration and logs the
 * error, which names the file, the line and the field. Polling sees every kind of change, including a
 * symlink swap of the whole directory (the reference's goruntime convention).
 */
final class ConfigWatcher implements AutoCloseable
{
    private static final Logger LOG = Logger.getLogger(ConfigWatcher.class.getName());

    private final Path directory;
    private final RlsService service;
    private final long pollMs;
    private final Thread thread;
    private final AtomicLong loads = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile String lastError;
    private volatile boolean running = true;
    private byte[] digest;

    ConfigWatcher(final Path directory, final RlsService service, final long pollMs)
    {
        this.directory = directory;
        this.service = service;
        this.pollMs = pollMs;
        this.digest = digest(directory);
        this.thread = new Thread(this::run, "rls-config-watcher");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run()
    {
        while (running)
        {
            try
            {
                Thread.sleep(pollMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            poll();
        }
    }

    /**
     * Check once, and reload if the files changed.
     */
    synchronized void poll()
    {
        final byte[] now = digest(directory);
        if (java.util.Arrays.equals(now, digest))
        {
            return;
        }
        digest = now;
        try
        {
            final RlsConfig config = ConfigLoader.load(directory);
            service.apply(config);
            loads.incrementAndGet();
            lastError = null;
            LOG.info("configuration reloaded from " + directory + ": " + config.rules().size() + " rules");
        }
        catch (final ConfigException ex)
        {
            errors.incrementAndGet();
            lastError = ex.getMessage();
            LOG.log(Level.SEVERE, "configuration not reloaded, the last good one stays: " + ex.getMessage());
        }
        catch (final RuntimeException ex)
        {
            errors.incrementAndGet();
            lastError = ex.toString();
            LOG.log(Level.SEVERE, "configuration not reloaded, the last good one stays", ex);
        }
    }

    private static byte[] digest(final Path directory)
    {
        try
        {
            final MessageDigest md = MessageDigest.getInstance("SHA-256");
            final List<Path> files = new ArrayList<>();
            try (Stream<Path> list = Files.list(directory))
            {
                list.filter(ConfigLoader::isConfigFile).sorted().forEach(files::add);
            }
            for (final Path file : files)
            {
                md.update(file.getFileName().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                md.update((byte)0);
                md.update(Files.readAllBytes(file));
                md.update((byte)0);
            }
            return md.digest();
        }
        catch (final IOException | RuntimeException | NoSuchAlgorithmException ex)
        {
            return new byte[0]; // unreadable now: a change, reported by the load
        }
    }

    long loads()
    {
        return loads.get();
    }

    long errors()
    {
        return errors.get();
    }

    String lastError()
    {
        return lastError;
    }

    public void close()
    {
        running = false;
        thread.interrupt();
    }
}
