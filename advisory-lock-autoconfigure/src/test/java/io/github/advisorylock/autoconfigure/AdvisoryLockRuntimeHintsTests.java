/*
 * Copyright 2026 the advisory-lock authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.advisorylock.autoconfigure;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.advisorylock.testsupport.BootAutoConfigurations;
import io.github.advisorylock.testsupport.UnconnectedDataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AdvisoryLockRuntimeHints}: each hint a native image needs is there,
 * and Spring's AOT processing of an application with the auto-configurations picks them
 * up.
 */
class AdvisoryLockRuntimeHintsTests {

	/** A hint only {@link AdvisoryLockRuntimeHints} gives. */
	private static final Predicate<RuntimeHints> ROOT_OBJECT_HINTED = RuntimeHintsPredicates.reflection()
		.onType(TypeReference.of(AdvisoryLockRuntimeHints.KEY_ROOT_OBJECT))
		.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS);

	private final RuntimeHints hints = new RuntimeHints();

	AdvisoryLockRuntimeHintsTests() {
		new AdvisoryLockRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void typesCheckedByNameAreRegistered() {
		assertThat(RuntimeHintsPredicates.reflection().onType(HikariDataSource.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(PGConnection.class)).accepts(this.hints);
		// The names the hints use are the names the code checks for.
		assertThat(HikariDataSource.class.getName()).isEqualTo(AdvisoryLockRuntimeHints.HIKARI_DATA_SOURCE);
		assertThat(PGConnection.class.getName()).isEqualTo(AdvisoryLockRuntimeHints.PG_CONNECTION);
	}

	@Test
	void whatTheStartupCheckLooksForByNameIsRegistered() {
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(LockPrerequisite.DRIVER_CLASS)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(LockPrerequisite.SPRING_JDBC_CLASS)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of(LockPrerequisite.TRANSACTION_MANAGER_CLASS))).accepts(this.hints);
	}

	@Test
	void theStartupCheckContributesTheHintsWhereTheAutoConfigurationBacksOff() {
		// No DataSource, no transaction manager: only the prerequisites'
		// auto-configuration applies.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockPrerequisitesAutoConfiguration.class,
					AdvisoryLockAutoConfiguration.class))
			.prepare((context) -> assertThat(ROOT_OBJECT_HINTED)
				.accepts(processAheadOfTime(context.getSourceApplicationContext(GenericApplicationContext.class))));
	}

	@Test
	void everyFieldThatCopyStateToCopiesIsRegistered() {
		// What HikariConfig.copyStateTo copies: the non-final fields, and the content of
		// the final AtomicReference ones (the credentials, from HikariCP 6 on).
		List<Field> copied = Arrays.stream(HikariConfig.class.getDeclaredFields())
			.filter((field) -> !Modifier.isFinal(field.getModifiers())
					|| AtomicReference.class.isAssignableFrom(field.getType()))
			.toList();
		assertThat(copied).extracting(Field::getName).contains("jdbcUrl", "dataSourceProperties");
		assertThat(copied)
			.allSatisfy((field) -> assertThat(RuntimeHintsPredicates.reflection().onField(field)).accepts(this.hints));
	}

	@Test
	void theRootObjectOfKeyExpressionsIsRegisteredForItsGetters() {
		assertThat(ClassUtils.isPresent(AdvisoryLockRuntimeHints.KEY_ROOT_OBJECT, getClass().getClassLoader()))
			.isTrue();
		assertThat(ROOT_OBJECT_HINTED).accepts(this.hints);
	}

	@Test
	void theAutoConfigurationsContributeTheHintsToAheadOfTimeProcessing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.dataSourceTransactionManager(),
					BootAutoConfigurations.transaction(), AdvisoryLockAutoConfiguration.class))
			.withBean(UnconnectedDataSource.class)
			.prepare((context) -> assertThat(ROOT_OBJECT_HINTED)
				.accepts(processAheadOfTime(context.getSourceApplicationContext(GenericApplicationContext.class))));
	}

	@Test
	void theEndpointAutoConfigurationContributesTheHintsAlone() {
		// The endpoint's direct connections check for Hikari too, also where the
		// annotation's beans are off.
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AdvisoryLockEndpointAutoConfiguration.class))
			.withBean(UnconnectedDataSource.class)
			.withPropertyValues("management.endpoints.web.exposure.include=advisorylocks")
			.prepare((context) -> assertThat(ROOT_OBJECT_HINTED)
				.accepts(processAheadOfTime(context.getSourceApplicationContext(GenericApplicationContext.class))));
	}

	private static RuntimeHints processAheadOfTime(GenericApplicationContext context) {
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get("com.example", "AotTest")), new InMemoryGeneratedFiles());
		new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		return generationContext.getRuntimeHints();
	}

}
