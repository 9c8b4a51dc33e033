// Redfish error documents as real BMCs send them (DSP0266 §9.6):
//   {"error": {"code": "Base.1.8.GeneralError", "message": "...",
//              "@Message.ExtendedInfo": [{"@odata.type": "#Message.v1_1_1.Message", "MessageId": "...",
//                                         "Message": "...", "MessageArgs": [...],
//                                         "RelatedProperties": [...], "Severity": "Critical",
//                                         "Resolution": "..."}]}}
// sushy reads `code`, `message` and the most severe extended message; it detects a missing
// TransferProtocolType from `Base.1.5.ActionParameterMissing` with `#/TransferProtocolType` in
// RelatedProperties — the shapes here match that.
// Does NOT: choose statuses (handler.ts does).

export interface RedfishMessage {
  id: string;
  message: string;
  args?: string[];
  related?: string[];
  severity?: 'OK' | 'Warning' | 'Critical';
  resolution?: string;
}

/**
 * `code` is the MessageId of the (single) message, as DSP0266 describes it and bmcweb sends it;
 * sushy compares it (e.g. with `Base.1.5.ActionParameterMissing`) to detect what a BMC wants.
 */
export function errorBody(message: RedfishMessage, code = message.id): Record<string, unknown> {
  return {
    error: {
      code,
      message: 'A general error has occurred. See ExtendedInfo for more information.',
      '@Message.ExtendedInfo': [
        {
          '@odata.type': '#Message.v1_1_1.Message',
          MessageId: message.id,
          Message: message.message,
          MessageArgs: message.args ?? [],
          RelatedProperties: message.related ?? [],
          Severity: message.severity ?? 'Critical',
          Resolution: message.resolution ?? 'None.',
        },
      ],
    },
  };
}

export const MESSAGES = {
  noValidSession: (): RedfishMessage => ({
    id: 'Base.1.8.NoValidSession',
    message: 'There is no valid session established with the implementation.',
    resolution: 'Establish a session before attempting any operations.',
  }),
  resourceMissing: (uri: string): RedfishMessage => ({
    id: 'Base.1.8.ResourceMissingAtURI',
    message: `The resource at the URI ${uri} was not found.`,
    args: [uri],
  }),
  methodNotAllowed: (): RedfishMessage => ({
    id: 'Base.1.8.OperationNotAllowed',
    message: 'The operation is not allowed on this resource.',
  }),
  malformedJson: (): RedfishMessage => ({
    id: 'Base.1.8.MalformedJSON',
    message: 'The request body submitted was malformed JSON.',
  }),
  parameterMissing: (action: string, parameter: string): RedfishMessage => ({
    id: 'Base.1.5.ActionParameterMissing',
    message: `The action ${action} requires the parameter ${parameter} to be present in the request body.`,
    args: [action, parameter],
    related: [`#/${parameter}`],
  }),
  parameterNotSupported: (action: string, parameter: string): RedfishMessage => ({
    id: 'Base.1.4.ActionParameterNotSupported',
    message: `The parameter ${parameter} for the action ${action} is not supported on the target resource.`,
    args: [parameter, action],
    related: [`#/${parameter}`],
  }),
  parameterUnknown: (action: string, parameter: string): RedfishMessage => ({
    id: 'Base.1.8.ActionParameterUnknown',
    message: `The action ${action} was submitted with the invalid parameter ${parameter}.`,
    args: [action, parameter],
    related: [`#/${parameter}`],
  }),
  valueNotInList: (value: string, property: string): RedfishMessage => ({
    id: 'Base.1.8.PropertyValueNotInList',
    message: `The value ${value} for the property ${property} is not in the list of acceptable values.`,
    args: [value, property],
    related: [`#/${property}`],
  }),
  propertyUnknown: (property: string): RedfishMessage => ({
    id: 'Base.1.8.PropertyUnknown',
    message: `The property ${property} is not in the list of valid properties for the resource.`,
    args: [property],
    related: [`#/${property}`],
  }),
  preconditionFailed: (): RedfishMessage => ({
    id: 'Base.1.8.PreconditionFailed',
    message: 'The ETag supplied did not match the ETag required to change this resource.',
  }),
  generic: (id: string, message: string): RedfishMessage => ({ id, message }),
};
