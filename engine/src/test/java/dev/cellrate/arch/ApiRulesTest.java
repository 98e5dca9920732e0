package dev.cellrate.arch;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The engine's API and layering rules, stated once (ArchUnit over the compiled main classes):
 * <ol>
 *   <li>a public type of an exported package names no type of an unexported engine package in its signature
 *   (supertypes, public and protected constructors, methods and fields, type arguments included);</li>
 *   <li>it hands out no raw key word, offset or state buffer: no member named {@code *KeyWord*} or
 *   {@code *Offset}, no constant named {@code *_OFFSET}, {@code *_RANGE_FIRST/LAST}, {@code HEADER_LENGTH} or
 *   {@code ALIGNMENT}, and no Agrona {@code AtomicBuffer} or {@code ByteBuffer} taken or returned (a key may
 *   be read from a caller's {@code DirectBuffer}, and header values written into a caller's
 *   {@code MutableDirectBuffer});</li>
 *   <li>the unexported packages (decision, layout, lock, checks, table) depend on no exported package, so the
 *   API sits on top of them;</li>
 *   <li>no two packages depend on each other, directly or through others;</li>
 *   <li>both of the last two hold for the sources as well ({@link SourceImports}): an import, a Javadoc link's
 *   import or a compile-time constant is a use of its package that the class files do not show;</li>
 *   <li>only the engine's fronts fill a {@code Reservation}: its public methods read it, so a caller cannot
 *   make one that looks issued by a front (an owner, a cell, the TATs a cancel restores);</li>
 *   <li>no exported method, constructor, field, record component or parameter names a TAT (the cell's internal
 *   time word): a user states a start as permits available at a time, and reads durations and permits
 *   ({@link TimeWordNames}).</li>
 * </ol>
 * The exported packages are read from the module descriptor, as {@link PublicSurface} reads them.
 */
final class ApiRulesTest
{
    private static final String ROOT = "dev.cellrate";
    private static final Pattern OFFSET_CONSTANT =
        Pattern.compile(".*_OFFSET|.*_RANGE_(FIRST|LAST)|HEADER_LENGTH|ALIGNMENT");
    private static final Set<String> STATE_BUFFERS = Set.of(
        "org.agrona.concurrent.AtomicBuffer", "org.agrona.concurrent.UnsafeBuffer", "java.nio.ByteBuffer",
        "java.nio.MappedByteBuffer");

    private static JavaClasses engine;
    private static Set<String> exported;
    private static Set<String> internal;

    @BeforeAll
    static void importEngine() throws Exception
    {
        engine = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages(ROOT);
        exported = new TreeSet<>(PublicSurface.exportedPackages(moduleDir()));
        internal = new TreeSet<>();
        for (final JavaClass type : engine)
        {
            if (!exported.contains(type.getPackageName()))
            {
                internal.add(type.getPackageName());
            }
        }
    }

    static Path moduleDir()
    {
        final Path here = Path.of("").toAbsolutePath();
        return here.resolve("src/main/module").toFile().isDirectory() ? here : here.resolve("engine");
    }

    private static final DescribedPredicate<JavaClass> API = new DescribedPredicate<>("public types of exported packages")
    {
        public boolean test(final JavaClass type)
        {
            return exported.contains(type.getPackageName()) && reachable(type);
        }
    };

    private static boolean reachable(final JavaClass type)
    {
        for (JavaClass t = type; null != t; t = t.getEnclosingClass().orElse(null))
        {
            if (!t.getModifiers().contains(JavaModifier.PUBLIC) || t.isAnonymousClass() || t.isLocalClass())
            {
                return false;
            }
        }
        return true;
    }

    private static boolean visible(final JavaClass owner, final JavaMember member)
    {
        final Set<JavaModifier> modifiers = member.getModifiers();
        return !modifiers.contains(JavaModifier.SYNTHETIC) && !modifiers.contains(JavaModifier.BRIDGE) &&
            (modifiers.contains(JavaModifier.PUBLIC) || (modifiers.contains(JavaModifier.PROTECTED) &&
                !owner.getModifiers().contains(JavaModifier.FINAL) && !owner.isEnum()));
    }

    private static List<String> signatureTypes(final JavaMember member)
    {
        final List<String> names = new ArrayList<>();
        if (member instanceof JavaField)
        {
            names.add(((JavaField)member).getRawType().getName());
        }
        else
        {
            final JavaCodeUnit unit = (JavaCodeUnit)member;
            names.add(unit.getRawReturnType().getName());
            unit.getRawParameterTypes().forEach(type -> names.add(type.getName()));
            unit.getThrowsClause().getTypes().forEach(type -> names.add(type.getName()));
        }
        member.getAllInvolvedRawTypes().forEach(type -> names.add(type.getName())); // type arguments, bounds
        return names;
    }

    private static String componentName(final String name)
    {
        return name.replace("[]", "").replaceFirst("^\\[+L(.*);$", "$1");
    }

    private static boolean isInternal(final String typeName)
    {
        final String name = componentName(typeName);
        final int dot = name.lastIndexOf('.');
        return dot > 0 && internal.contains(name.substring(0, dot));
    }

    private static final ArchCondition<JavaClass> NAME_NO_INTERNAL_TYPE =
        new ArchCondition<>("name no type of an unexported package in their signatures")
        {
            public void check(final JavaClass type, final ConditionEvents events)
            {
                final List<String> supertypes = new ArrayList<>();
                type.getSuperclass().ifPresent(superclass ->
                    superclass.getAllInvolvedRawTypes().forEach(raw -> supertypes.add(raw.getName())));
                type.getInterfaces().forEach(iface ->
                    iface.getAllInvolvedRawTypes().forEach(raw -> supertypes.add(raw.getName())));
                for (final String supertype : supertypes)
                {
                    if (isInternal(supertype))
                    {
                        events.add(SimpleConditionEvent.violated(type, type.getName() + " extends " + supertype));
                    }
                }
                for (final JavaMember member : type.getMembers())
                {
                    if (!visible(type, member))
                    {
                        continue;
                    }
                    for (final String name : signatureTypes(member))
                    {
                        if (isInternal(name))
                        {
                            events.add(SimpleConditionEvent.violated(member, member.getFullName() + " names " + name));
                        }
                    }
                }
            }
        };

    private static final ArchCondition<JavaClass> HAND_OUT_NO_RAW_STATE =
        new ArchCondition<>("hand out no raw key word, offset or state buffer")
        {
            public void check(final JavaClass type, final ConditionEvents events)
            {
                for (final JavaMember member : type.getMembers())
                {
                    if (!visible(type, member))
                    {
                        continue;
                    }
                    final String name = member.getName();
                    if (name.toLowerCase().contains("keyword") || name.endsWith("Offset") ||
                        (member instanceof JavaField && OFFSET_CONSTANT.matcher(name).matches()))
                    {
                        events.add(SimpleConditionEvent.violated(member, member.getFullName() + " is a raw key word, " +
                            "offset or layout constant"));
                    }
                    for (final String typeName : signatureTypes(member))
                    {
                        if (STATE_BUFFERS.contains(componentName(typeName)))
                        {
                            events.add(SimpleConditionEvent.violated(member, member.getFullName() + " takes or " +
                                "returns a state buffer " + typeName));
                        }
                    }
                }
            }
        };

    @Test
    void exportedSignaturesNameNoInternalType()
    {
        final ArchRule rule = classes().that(API).should(NAME_NO_INTERNAL_TYPE);
        rule.check(engine);
    }

    @Test
    void exportedSignaturesHandOutNoRawKeyWordOffsetOrBuffer()
    {
        classes().that(API).should(HAND_OUT_NO_RAW_STATE).check(engine);
    }

    @Test
    void internalPackagesDependOnNoExportedPackage()
    {
        noClasses().that().resideInAnyPackage(internal.toArray(new String[0]))
            .should().dependOnClassesThat().resideInAnyPackage(exported.toArray(new String[0]))
            .because("the API sits on the decision, layout, lock and table layers, never the other way round")
            .check(engine);
    }

    private static final ArchCondition<JavaClass> ONLY_READ =
        new ArchCondition<>("offer only readers: its public methods take no argument and return a value")
        {
            public void check(final JavaClass type, final ConditionEvents events)
            {
                for (final JavaMember member : type.getMembers())
                {
                    if (!visible(type, member) || !(member instanceof JavaMethod))
                    {
                        continue;
                    }
                    final JavaCodeUnit unit = (JavaCodeUnit)member;
                    final boolean reader = unit.getRawParameterTypes().isEmpty() &&
                        !"void".equals(unit.getRawReturnType().getName());
                    if (!reader)
                    {
                        events.add(SimpleConditionEvent.violated(member, member.getFullName() + " is public: a " +
                            "caller could fill a reservation that looks issued by a front"));
                    }
                }
            }
        };

    @Test
    void onlyTheEngineFillsAReservation()
    {
        classes().that().haveFullyQualifiedName(ROOT + ".Reservation").should(ONLY_READ).check(engine);
    }

    @Test
    void exportedSignaturesNameNoTat() throws Exception
    {
        final java.util.List<String> found = TimeWordNames.find(moduleDir(), exported);
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(), found,
            "exported names that name a TAT, the cell's internal time word");
    }

    @Test
    void theTatRuleSeesEveryKindOfName()
    {
        for (final String name : new String[] {"tatNs", "initialTatNs", "FRESH_TAT_NS", "tat", "tatAfterNs"})
        {
            org.junit.jupiter.api.Assertions.assertTrue(TimeWordNames.namesATat(name), name);
        }
        for (final String name : new String[] {"state", "status", "STATE", "rotate", "startNs", "statFile"})
        {
            org.junit.jupiter.api.Assertions.assertFalse(TimeWordNames.namesATat(name), name);
        }
    }

    @Test
    void unexportedSourcesUseNoExportedPackage() throws Exception
    {
        final List<String> found = new ArrayList<>();
        for (final Map.Entry<String, Map<String, Set<String>>> from : SourceImports.graph(moduleDir(), ROOT).entrySet())
        {
            for (final Map.Entry<String, Set<String>> use : from.getValue().entrySet())
            {
                if (internal.contains(from.getKey()) && exported.contains(use.getKey()))
                {
                    found.add(from.getKey() + " -> " + use.getKey() + " " + use.getValue());
                }
            }
        }
        assertEquals(List.of(), found, "unexported sources that import or name an exported type (a constant " +
            "counts: the class files keep no trace of its owner, so the ArchUnit rules above cannot see it)");
    }

    @Test
    void noImportCircleInTheSources() throws Exception
    {
        assertEquals(List.of(), SourceImports.cycles(SourceImports.graph(moduleDir(), ROOT)),
            "packages whose sources import each other, directly or through others");
    }

    @Test
    void noPackageCycles()
    {
        slices().assignedFrom(new SliceAssignment()
        {
            public SliceIdentifier getIdentifierOf(final JavaClass type)
            {
                return type.getPackageName().startsWith(ROOT) ?
                    SliceIdentifier.of(type.getPackageName()) : SliceIdentifier.ignore();
            }

            public String getDescription()
            {
                return "engine packages";
            }
        }).should().beFreeOfCycles().check(engine);
    }
}
