package dev.cellrate.spring;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter's compiled classes refer to the engine through its exported packages only (the {@code exports} of
 * the engine's {@code module-info.java}), so an application may put the engine on the module path. The check
 * reads every class name in the class files' constant pools, method descriptors included, so a call that
 * returns an internal type is caught even with no import. A name counts as the engine's when its package is a
 * package of the engine's sources; the starter's own packages and the other integrations' are not checked here.
 */
final class ExportedApiTest
{
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern CLASS_NAME = Pattern.compile("dev/cellrate/((?:[a-z]\\w*/)*)[A-Z]");

    @Test
    void mainCodeNamesOnlyExportedEnginePackages() throws IOException
    {
        final Path root = Path.of("").toAbsolutePath();
        final Path engine = root.resolveSibling("engine");
        final Set<String> exported = new TreeSet<>();
        final Matcher e = EXPORTS.matcher(Files.readString(engine.resolve("src/main/module/module-info.java")));
        while (e.find())
        {
            exported.add(e.group(1));
        }
        assertTrue(exported.contains("dev.cellrate"), "exports read: " + exported);
        final Set<String> enginePackages = enginePackages(engine.resolve("src/main/java"));
        assertTrue(enginePackages.size() > exported.size(), "the engine has internal packages: " + enginePackages);

        final List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> classes = Files.walk(root.resolve("target/classes")))
        {
            for (final Path file : (Iterable<Path>)classes.filter(p -> p.toString().endsWith(".class"))::iterator)
            {
                files++;
                final Matcher m = CLASS_NAME.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (m.find())
                {
                    final String pkg = ("dev/cellrate/" + m.group(1)).replace('/', '.').replaceAll("\\.$", "");
                    if (enginePackages.contains(pkg) && !exported.contains(pkg))
                    {
                        violations.add(file.getFileName() + ": " + pkg);
                    }
                }
            }
        }
        assertTrue(files > 10, "read the starter's classes: " + files);
        assertEquals(List.of(), violations, "engine packages that module dev.cellrate does not export " + exported);
    }

    private static Set<String> enginePackages(final Path sources) throws IOException
    {
        final Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sources))
        {
            files.filter(p -> p.toString().endsWith(".java")).forEach(
                p -> packages.add(sources.relativize(p.getParent()).toString().replace('/', '.')));
        }
        assertFalse(packages.isEmpty(), "engine sources at " + sources);
        return packages;
    }
}
