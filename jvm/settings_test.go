package jvm

import (
	"reflect"
	"testing"

	"sdchaos/history"
)

func TestArgSettings(t *testing.T) {
	args := []string{"-Djava.io.tmpdir=/t", "-XX:-UsePerfData", "-Xmx128m", "-jar", "/cache/app.jar",
		"--eureka.server.enable-self-preservation=false", "--server.port=9600", "spring", "-Dflag"}
	got := ArgSettings("servers", args)
	want := []history.Setting{
		{Of: "servers", Name: "java.io.tmpdir", Value: "/t", Source: SourceSystemProperty},
		{Of: "servers", Name: "eureka.server.enable-self-preservation", Value: "false", Source: SourceSpringArg},
		{Of: "servers", Name: "server.port", Value: "9600", Source: SourceSpringArg},
		{Of: "servers", Name: "flag", Value: "", Source: SourceSystemProperty},
		{Of: "servers", Name: "JVM options", Value: "-XX:-UsePerfData -Xmx128m", Source: SourceJVMOptions},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArgSettings =\n%+v\nwant\n%+v", got, want)
	}
}

func TestEnvSettings(t *testing.T) {
	got := EnvSettings("client", []string{"A=1", "B=x=y"}, map[string]string{"A": "the property a"})
	want := []history.Setting{
		{Of: "client", Name: "A", Value: "1", Source: SourceEnv + " (the property a)"},
		{Of: "client", Name: "B", Value: "x=y", Source: SourceEnv},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EnvSettings = %+v, want %+v", got, want)
	}
}

func TestAppSettingsLeaveOutWhatTheCommandLineOverrides(t *testing.T) {
	inv := Inventory{AppProperties: map[string]string{"server.port": "8080", "logging.level.root": "WARN",
		"eureka.client.register-with-eureka": "false"}}
	given := []history.Setting{{Name: "server.port", Value: "9600"}, {Name: "eureka.client.registerWithEureka", Value: "true"}}
	got := inv.AppSettings("eureka-server", "servers", given)
	want := []history.Setting{{Of: "servers", Name: "logging.level.root", Value: "WARN",
		Source: "application.properties in the built eureka-server jar"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AppSettings = %+v, want %+v", got, want)
	}
}
