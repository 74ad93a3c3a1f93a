package zookeeper

import (
	"encoding/json"
	"fmt"
	"path"
	"time"
)

// The Curator service-discovery layout: an instance of service S with id I is
// the node <basePath>/S/I holding Curator's JSON ServiceInstance
// (curator-x-discovery 5.9.0: ServiceDiscoveryImpl.pathForInstance, written by
// JsonInstanceSerializer).

// InstancePath returns the node of instance id of service under basePath.
func InstancePath(basePath, service, id string) string { return path.Join(basePath, service, id) }

// ServicePath returns the parent node of service's instances.
func ServicePath(basePath, service string) string { return path.Join(basePath, service) }

// ZookeeperInstanceClass is the Java class of the payload Spring Cloud
// Zookeeper registers and reads (org.springframework.cloud.zookeeper.discovery.
// ZookeeperInstance: id, name, metadata). Curator writes a payload with its
// class name under "@class" (ServiceInstance.getPayload carries
// @JsonTypeInfo(use = CLASS)).
const ZookeeperInstanceClass = "org.springframework.cloud.zookeeper.discovery.ZookeeperInstance"

// ServiceTypeDynamic is Curator's ServiceType.DYNAMIC: an ephemeral node that
// lives with its session (ServiceDiscoveryImpl.internalRegisterService).
const ServiceTypeDynamic = "DYNAMIC"

// ServiceInstance is Curator's ServiceInstance as its default serializer
// writes it: JsonInstanceSerializer(payloadClass) runs in compatible mode
// (OldServiceInstance: no "enabled" field), which Spring Cloud Zookeeper uses
// too (CuratorServiceDiscoveryAutoConfiguration.deprecatedInstanceSerializer).
type ServiceInstance struct {
	Name                string   `json:"name"`
	ID                  string   `json:"id"`
	Address             string   `json:"address"`
	Port                *int     `json:"port"`
	SSLPort             *int     `json:"sslPort"`
	Payload             *Payload `json:"payload"`
	RegistrationTimeUTC int64    `json:"registrationTimeUTC"`
	ServiceType         string   `json:"serviceType"`
	URISpec             *URISpec `json:"uriSpec"`
}

// Payload is Spring Cloud Zookeeper's ZookeeperInstance with Jackson's class
// tag. Metadata["instance_status"] = "UP" keeps the instance in Spring's list
// (ZookeeperServiceInstanceListSupplier drops any other status).
type Payload struct {
	Class    string            `json:"@class"`
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Metadata map[string]string `json:"metadata"`
}

// URISpec is Curator's UriSpec as Jackson writes it: its parts.
type URISpec struct {
	Parts []URIPart `json:"parts"`
}

// URIPart is one part of a UriSpec: a literal, or a {variable}.
type URIPart struct {
	Value    string `json:"value"`
	Variable bool   `json:"variable"`
}

// DefaultURISpec is "{scheme}://{address}:{port}", the spec Spring Cloud
// Zookeeper registers with.
var DefaultURISpec = URISpec{Parts: []URIPart{{"scheme", true}, {"://", false}, {"address", true}, {":", false}, {"port", true}}}

// NewServiceInstance returns the instance a registrant writes: id of service at
// address:port, dynamic, registered at t, with Spring's payload (status UP).
func NewServiceInstance(service, id, address string, port int, t time.Time) ServiceInstance {
	spec := DefaultURISpec
	return ServiceInstance{Name: service, ID: id, Address: address, Port: &port,
		Payload:             &Payload{Class: ZookeeperInstanceClass, ID: id, Name: service, Metadata: map[string]string{"instance_status": "UP"}},
		RegistrationTimeUTC: t.UnixMilli(), ServiceType: ServiceTypeDynamic, URISpec: &spec}
}

// Marshal returns the node's data.
func (s ServiceInstance) Marshal() ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding instance %s: %w", s.ID, err)
	}
	return b, nil
}

// ParseServiceInstance decodes a node's data (unknown fields are ignored, as
// Curator's serializer does).
func ParseServiceInstance(b []byte) (ServiceInstance, error) {
	var s ServiceInstance
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("decoding a Curator service instance: %w", err)
	}
	if s.Name == "" || s.ID == "" {
		return s, fmt.Errorf("decoding a Curator service instance: no name or id in %q", b)
	}
	return s, nil
}

// Target returns "address:port" ("" without a port).
func (s ServiceInstance) Target() string {
	if s.Port == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", s.Address, *s.Port)
}
